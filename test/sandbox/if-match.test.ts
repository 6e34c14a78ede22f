// Changes on top of a version (If-Match): Renew Card and Update Card Customer by the card's __v, Update OAuth
// Application by its updatedAt. A change made meanwhile is a 409 CONFLICT and nothing is
// written, so two read-modify-write clients never lose a change.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call, createCard, startTestSandbox, type Sandbox, type DataEnvelope, type ListDataEnvelope } from './helpers.js';
import { makeCertificate } from './oauth-helpers.js';
import type { Card, OAuthApplication } from '../../src/api/schemas.js';
import { present } from '../helpers/json.js';

let sandbox: Sandbox;
beforeAll(async () => { sandbox = await startTestSandbox(); });
afterAll(async () => { await sandbox?.close(); });

/** The card's customer as the Update Card Customer body, with `changes` laid over it. */
function customerBody(card: Card, changes: Record<string, unknown>): Record<string, unknown> {
  const { uniqueId, honorific, gender, ...customer } = card.customer;
  return { ...customer, ...changes };
}

async function readCard(id: string) {
  return (await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?cardId=${id}`, { token: sandbox.token })).body.data[0];
}

function update(card: Card, changes: Record<string, unknown>, ifMatch?: string) {
  return call<DataEnvelope<Card>>(sandbox, 'PUT', `/institutions/cards/${card.id}/customer`, {
    token: sandbox.token, body: customerBody(card, changes), headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
  });
}

describe('Renew Card with If-Match', () => {
  const renew = (card: Card, expiration: string, ifMatch?: string) => call<DataEnvelope<Card>>(sandbox, 'PUT', `/institutions/cards/${card.id}/renew`, {
    token: sandbox.token, body: { expiration, renewReason: 'RENEW' }, headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
  });
  const month = (ahead: number) => {
    const d = new Date();
    d.setUTCDate(1);
    d.setUTCMonth(d.getUTCMonth() + ahead);
    return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
  };

  test('a renewal resent on the version read is a 409 that writes nothing: one new sequence number, not two', async () => {
    const card = await createCard(sandbox);
    const first = await renew(card, month(12), `"${card.__v}"`);
    expect(first.status, first.text).toBe(200);
    const again = await renew(card, month(12), `"${card.__v}"`);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: 'CONFLICT', details: { version: card.__v + 1 } });
    const after = await readCard(card.id);
    expect(Number(after.seqNumber)).toBe(Number(card.seqNumber) + 1);
    expect(after.__v).toBe(card.__v + 1);
    // Without If-Match a renewal applies to whatever is current, as the reference API does.
    expect((await renew(card, month(13))).status).toBe(200);
    expect(Number((await readCard(card.id)).seqNumber)).toBe(Number(card.seqNumber) + 2);
  });
});

describe('Update Card Customer with If-Match', () => {
  test('the version read applies once; the same version again is a 409 that writes nothing', async () => {
    const card = await createCard(sandbox);
    const first = await update(card, { emailAddress: 'first@example.com' }, `"${card.__v}"`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.__v).toBe(card.__v + 1);
    const stale = await update(card, { phoneNumber: '+2348000000001' }, `"${card.__v}"`);
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ error: 'CONFLICT', details: { version: card.__v + 1 }, errors: [{ field: 'If-Match' }] });
    expect(stale.body.message).toContain(`it is at version ${card.__v + 1}`);
    const after = await readCard(card.id);
    expect(after.customer).toMatchObject({ emailAddress: 'first@example.com', phoneNumber: card.customer.phoneNumber });
    expect(after.__v).toBe(card.__v + 1);
  });

  test('two parallel changes on the same version: exactly one applies, the other is a conflict', async () => {
    const card = await createCard(sandbox);
    const answers = await Promise.all([
      update(card, { emailAddress: 'parallel@example.com' }, `"${card.__v}"`),
      update(card, { phoneNumber: '+2348000000002' }, `"${card.__v}"`),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const after = await readCard(card.id);
    expect(after.__v).toBe(card.__v + 1);
    const winner = answers.find((a) => a.status === 200)!.body.data;
    expect(after.customer).toEqual(winner.customer);
  });

  test('weak tags, lists and * match; a stale or malformed tag does not; no If-Match applies as before', async () => {
    const card = await createCard(sandbox);
    expect((await update(card, { firstName: 'Weak' }, `W/"${card.__v}"`)).status).toBe(200);
    expect((await update(card, { firstName: 'List' }, `"99", "${card.__v + 1}"`)).status).toBe(200);
    expect((await update(card, { firstName: 'Any' }, '*')).status).toBe(200);
    for (const tag of ['"0"', '', 'garbage', '"1.0"', `"${'9'.repeat(400)}"`]) {
      const refused = await update(card, { firstName: 'Never' }, tag);
      expect(refused.status, tag).toBe(409);
      expect(refused.body.message.length).toBeLessThan(200);
    }
    expect((await update(card, { firstName: 'Plain' })).status).toBe(200);
    const after = await readCard(card.id);
    expect(after.customer.firstName).toBe('Plain');
    expect(after.__v).toBe(card.__v + 4);
  });
});

describe('Update OAuth Application with If-Match', () => {
  let application: OAuthApplication;
  const body = (changes: Record<string, unknown>) => ({ name: application.name, description: '', websiteUrl: 'https://example.com', scopes: ['read:card'], ...changes });
  const update = (changes: Record<string, unknown>, ifMatch?: string) => call<DataEnvelope<OAuthApplication>>(sandbox, 'PUT', `/institutions/oauth/${application.id}`, {
    token: sandbox.token, body: body(changes), headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
  });
  const read = async () => present((await call<ListDataEnvelope<OAuthApplication>>(sandbox, 'GET', '/institutions/oauth/applications', { token: sandbox.token })).body.data.find((a: OAuthApplication) => a.id === application.id), 'the application');

  beforeAll(async () => {
    const created = await call<DataEnvelope<OAuthApplication>>(sandbox, 'POST', '/institutions/oauth/create', {
      token: sandbox.token,
      body: { name: 'Versioned', publicKey: makeCertificate().certificatePem, scopes: ['read:card'], grantType: 'client_credentials' },
    });
    expect(created.status, created.text).toBe(201);
    application = created.body.data;
  }, 30_000);

  test('the updatedAt read applies once; the same one again is a 409 that writes nothing; every change moves updatedAt', async () => {
    const version = (await read()).updatedAt;
    const first = await update({ description: 'first' }, `"${version}"`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.data.updatedAt > version).toBe(true);
    const stale = await update({ scopes: ['read:transaction'] }, `"${version}"`);
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ error: 'CONFLICT', details: { version: first.body.data.updatedAt } });
    expect(await read()).toMatchObject({ description: 'first', scopes: ['read:card'] });
    // Two changes in a row (within one millisecond or not) never share a version.
    const a = await update({ description: 'a' });
    const b = await update({ description: 'b' });
    expect(b.body.data.updatedAt > a.body.data.updatedAt).toBe(true);
  });

  test('two parallel changes on the same version: exactly one applies', async () => {
    const version = (await read()).updatedAt;
    const answers = await Promise.all([update({ description: 'left' }, `"${version}"`), update({ scopes: ['read:transaction'] }, `"${version}"`)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const winner = answers.find((a) => a.status === 200)!.body.data;
    expect(await read()).toMatchObject({ description: winner.description, scopes: winner.scopes, updatedAt: winner.updatedAt });
  });
});
