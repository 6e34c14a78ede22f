// The filters an operator reaches for: one card's transactions (`cardId`) and the cards in one
// status (`status`), narrowed in the store, so a page and its total are of the matching records.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call, createCard, startTestSandbox, type Sandbox, type DataEnvelope, type ListDataEnvelope } from './helpers.js';
import { auth, simulate } from './switch-helpers.js';
import type { Card, Transaction } from '../../src/api/schemas.js';
import { present } from '../helpers/json.js';

let sandbox: Sandbox;
let ada = '';
let ben = '';

beforeAll(async () => {
  sandbox = await startTestSandbox();
  ada = (await createCard(sandbox)).id;
  ben = (await createCard(sandbox)).id;
  for (const cardId of [ada, ben, ada, ben, ada]) expect((await simulate(sandbox, auth(cardId))).status).toBe(200);
  expect((await call<DataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards/${ben}/deactivate`, { token: sandbox.token })).status).toBe(200);
}, 30_000);

afterAll(async () => { await sandbox?.close(); });

describe('list filters', () => {
  test('transactions ?cardId= keeps one card\'s, newest first, with their total', async () => {
    const page = await call<ListDataEnvelope<Transaction>>(sandbox, 'GET', `/institutions/transactions?cardId=${ada}&limit=2`, { token: sandbox.token });
    expect(page.status, page.text).toBe(200);
    expect(page.body.data.map((tx) => present(tx.card, 'the card of a transaction').id)).toEqual([ada, ada]);
    expect(page.body.pagination).toMatchObject({ total: 3, pages: 2 });
    const none = await call<ListDataEnvelope<Transaction>>(sandbox, 'GET', '/institutions/transactions?cardId=nosuchcard', { token: sandbox.token });
    expect(none.body.data).toEqual([]);
  });

  test('cards ?status= keeps the cards in that status, alone or with search and cardId', async () => {
    const ids = async (query: string) => (await call<ListDataEnvelope<Card>>(sandbox, 'GET', `/institutions/cards?${query}`, { token: sandbox.token })).body.data.map((card: { id: string }) => card.id);
    expect(await ids('status=suspended')).toEqual([ben]);
    expect((await ids('status=active'))).toEqual([ada]);
    expect(await ids(`status=active&cardId=${ben}`)).toEqual([]);
    expect(await ids(`status=suspended&cardId=${ben}&search=${ben.slice(0, 6)}`)).toEqual([ben]);
    const bad = await call<ListDataEnvelope<Card>>(sandbox, 'GET', '/institutions/cards?status=bogus', { token: sandbox.token });
    expect(bad.status).toBe(400);
  });
});
