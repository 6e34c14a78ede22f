// Card status transitions: every (status, operation) pair is checked against the sandbox's one
// table (CARD_STATUS_TRANSITIONS), over HTTP, so the tests follow the table and cannot drift
// from it; then by hand, the paths by which a card once came back to life.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CARD_STATUSES } from '../../src/core/enums.js';
import { CARD_STATUS_TRANSITIONS, STATUS_OPERATIONS, type StatusOperation } from '../../src/sandbox/cards.js';
import { call, createCard, startTestSandbox, type Sandbox, type DataEnvelope, type ListDataEnvelope, errorOf, type OpenApiAnswer } from './helpers.js';
import { auth, simulate } from './switch-helpers.js';
import type { Card } from '../../src/api/schemas.js';

let sandbox: Sandbox;

beforeAll(async () => { sandbox = await startTestSandbox(); });
afterAll(async () => { await sandbox?.close(); });

function monthsFromNow(months: number): string {
  const now = new Date();
  const at = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + months, 1));
  return `${at.getUTCFullYear()}${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}

/** A card past its expiry month (created with dates in the past). */
const PAST_DATES = { startDate: '2019-01-01T00:00:00.000Z', expiryDate: '2020-01-15T00:00:00.000Z' };

async function apply(cardId: string, operation: StatusOperation) {
  if (operation === 'renew') {
    return call<DataEnvelope<Card>>(sandbox, 'PUT', `/institutions/cards/${cardId}/renew`, { token: sandbox.token, body: { expiration: monthsFromNow(12), renewReason: 'RENEW' } });
  }
  return call<DataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards/${cardId}/${operation}`, { token: sandbox.token });
}

async function stored(cardId: string) {
  const response = await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?cardId=${cardId}`, { token: sandbox.token });
  return response.body.data[0];
}

const pairs = STATUS_OPERATIONS.flatMap((operation) => CARD_STATUSES.map((status) => [operation, status] as const));

describe('the transition table, pair by pair', () => {
  test('the table has a row for every status the API knows, for every operation', () => {
    for (const operation of STATUS_OPERATIONS) expect(Object.keys(CARD_STATUS_TRANSITIONS[operation].from).sort()).toEqual([...CARD_STATUSES].sort());
  });

  test.each(pairs)('%s of a %s card does what the table says', async (operation, status) => {
    const card = await createCard(sandbox, { status });
    const expected = CARD_STATUS_TRANSITIONS[operation].from[status];
    const response = await apply(card.id, operation);
    if (typeof expected === 'string') {
      expect(response.status, response.text).toBe(200);
      expect(response.body.data.status).toBe(expected);
      expect((await stored(card.id)).status).toBe(expected);
    } else {
      expect(response.status, response.text).toBe(400);
      expect(response.body).toMatchObject({ error: 'VALIDATION_ERROR', message: expected.refused, errors: [{ field: 'status', message: expected.because }] });
      const after = await stored(card.id);
      expect(after.status).toBe(status);
      expect(after.__v).toBe(0);
    }
  });

  test.each(pairs)('%s of a %s card past its expiry month does what the table says', async (operation, status) => {
    const card = await createCard(sandbox, { status, ...PAST_DATES });
    const rule = CARD_STATUS_TRANSITIONS[operation];
    const expected = rule.pastExpiry ?? rule.from[status];
    const response = await apply(card.id, operation);
    if (typeof expected === 'string') {
      expect(response.status, response.text).toBe(200);
      expect(response.body.data.status).toBe(expected);
    } else {
      expect(response.status, response.text).toBe(400);
      expect(errorOf(response).message).toBe(expected.refused);
      expect((await stored(card.id)).__v).toBe(0);
    }
  });

  test('the served descriptions are the table in words', async () => {
    const doc = (await call<OpenApiAnswer>(sandbox, 'GET', '/openapi.json')).body;
    expect(doc.paths['/institutions/cards/{cardId}/activate'].get.description).toContain('suspended → active, expired: refused (400)');
    expect(doc.paths['/institutions/cards/{cardId}/deactivate'].get.description).toContain('active → suspended');
    expect(doc.paths['/institutions/cards/{cardId}/renew'].put.description).toContain('suspended → active, expired → active');
  });
});

describe('no path brings a card back without the table', () => {
  test('an expired card: deactivate then activate is refused, and the switch still declines it (54)', async () => {
    const card = await createCard(sandbox, { status: 'expired' });
    const off = await apply(card.id, 'deactivate');
    expect(off.status).toBe(400);
    expect(errorOf(off).message).toMatch(/expired card cannot be deactivated/);
    const on = await apply(card.id, 'activate');
    expect(on.status).toBe(400);
    expect((await stored(card.id)).status).toBe('expired');
    const declined = await simulate(sandbox, auth(card.id));
    expect(declined.body.data.responseCode).toBe('54');
    // Renewal is the way back.
    const renewed = await apply(card.id, 'renew');
    expect(renewed.body.data.status).toBe('active');
    expect((await simulate(sandbox, auth(card.id))).body.data.responseCode).toBe('00');
  });

  test('a renewal replaces a deactivated card with an active one, which the switch approves again', async () => {
    const card = await createCard(sandbox);
    expect((await apply(card.id, 'deactivate')).body.data.status).toBe('suspended');
    expect((await simulate(sandbox, auth(card.id))).body.data.responseCode).toBe('62');
    const renewed = await apply(card.id, 'renew');
    expect(renewed.status).toBe(200);
    expect(renewed.body.data.status).toBe('active');
    expect((await simulate(sandbox, auth(card.id))).body.data.responseCode).toBe('00');
  });

  test('a card past its expiry month: deactivate then activate is refused; only a renewal makes it active', async () => {
    const card = await createCard(sandbox, PAST_DATES);
    expect((await apply(card.id, 'deactivate')).body.data.status).toBe('suspended');
    expect((await apply(card.id, 'activate')).status).toBe(400);
    expect((await stored(card.id)).status).toBe('suspended');
    expect((await simulate(sandbox, auth(card.id))).body.data.responseCode).toBe('54');
    expect((await apply(card.id, 'renew')).body.data.status).toBe('active');
    expect((await simulate(sandbox, auth(card.id))).body.data.responseCode).toBe('00');
  });

  test('every sequence of up to three operations: an expired card is active only after a renewal, a suspended one only after an activate or a renewal', async () => {
    const sequences: StatusOperation[][] = [[]];
    for (let length = 0; length < 3; length++) {
      for (const sequence of sequences.filter((s) => s.length === length)) {
        for (const operation of STATUS_OPERATIONS) sequences.push([...sequence, operation]);
      }
    }
    const unlockedBy = { expired: ['renew'], suspended: ['activate', 'renew'] } as const;
    for (const [start, unlocks] of Object.entries(unlockedBy) as [keyof typeof unlockedBy, readonly StatusOperation[]][]) {
      for (const sequence of sequences.filter((s) => s.length > 0)) {
        const card = await createCard(sandbox, { status: start });
        for (const operation of sequence) await apply(card.id, operation);
        const { status } = await stored(card.id);
        if (status === 'active') expect(sequence.some((operation) => unlocks.includes(operation)), `${start} → ${sequence.join(', ')} → active`).toBe(true);
      }
    }
  }, 60_000);
});
