import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import {
  activateCard, changePin, createCard, deactivateCard, getCard, listAllCards, listCardPrograms, listCards, renewCard, resetPin, updateCustomer,
} from '../../src/api/cards.js';
import { NotFoundError, RejectedError } from '../../src/core/errors.js';
import { createCardBodyOf, updateCustomerBodyOf } from '../helpers/bodies.js';

const BASE = 'http://127.0.0.1:4010';
const block = { encryptedData: 'ab', publicKeyFingerprint: 'ff' };

function setup() {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const client = new ApiClient({ baseUrl: BASE, getToken: async () => 't', dispatcher: agent, retries: 0 });
  const calls: Array<{ method: string; path: string; body?: unknown }> = [];
  const pool = agent.get(BASE);
  const answer = (method: string, path: string, data: unknown, status = 200, extra: Record<string, unknown> = {}) =>
    pool.intercept({ path, method }).reply(status, (request) => {
      calls.push({ method, path, body: request.body ? JSON.parse(String(request.body)) : undefined });
      return status < 400 ? { statusCode: 200, message: 'ok', data, ...extra } : { statusCode: status, message: 'no', error: 'NOT_FOUND', ...extra };
    });
  return { agent, client, calls, answer };
}

describe('card endpoints', () => {
  it('uses the query names of docs/sandbox-api.md (search, cardId, page, limit)', async () => {
    const { client, calls, answer } = setup();
    answer('GET', '/institutions/cards?search=ada+obi&cardId=c1&page=2&limit=50', [{ id: 'c1' }]);
    const response = await listCards(client, { search: 'ada obi', cardId: 'c1', page: 2, limit: 50 });
    expect(response.data).toEqual([{ id: 'c1' }]);
    expect(calls).toHaveLength(1);
  });

  it('get: finds the card through ?cardId=, and an empty list is not found', async () => {
    const { client, answer } = setup();
    answer('GET', '/institutions/cards?cardId=c1&limit=1', [{ id: 'c1', status: 'active' }]);
    expect((await getCard(client, 'c1')).data).toEqual({ id: 'c1', status: 'active' });
    answer('GET', '/institutions/cards?cardId=c2&limit=1', []);
    await expect(getCard(client, 'c2')).rejects.toBeInstanceOf(NotFoundError);
    answer('GET', '/institutions/cards?cardId=c3&limit=1', [{ id: 'other' }]);
    await expect(getCard(client, 'c3')).rejects.toThrow(/card c3 not found/);
  });

  it('pages until pagination.pages, or until a short page without it', async () => {
    const { client, answer } = setup();
    answer('GET', '/institutions/cards?search=x&page=1&limit=2', [{ id: 'a' }, { id: 'b' }]);
    answer('GET', '/institutions/cards?search=x&page=2&limit=2', [{ id: 'c' }]);
    const ids: string[] = [];
    for await (const page of listAllCards(client, { search: 'x', limit: 2 })) ids.push(...page.data.map((c) => c.id));
    expect(ids).toEqual(['a', 'b', 'c']);
  });

  it('sends each mutation to its path with its body', async () => {
    const { client, calls, answer } = setup();
    answer('POST', '/institutions/cards', { id: 'c1' });
    answer('PUT', '/institutions/cards/c%2F1/renew', { id: 'c/1' });
    answer('PUT', '/institutions/cards/pin/c1/change', { id: 'c1' });
    answer('PUT', '/institutions/cards/pin/c1/reset', { id: 'c1' });
    answer('PUT', '/institutions/cards/c1/customer', { id: 'c1' });
    answer('GET', '/institutions/cards/c1/activate', { id: 'c1', status: 'active' });
    answer('GET', '/institutions/cards/c1/deactivate', { id: 'c1', status: 'suspended' });
    await createCard(client, createCardBodyOf());
    await renewCard(client, 'c/1', { expiration: '202912', renewReason: 'RENEW' });
    await changePin(client, 'c1', { oldPIN: block, newPIN: block });
    await resetPin(client, 'c1', block);
    await updateCustomer(client, 'c1', updateCustomerBodyOf());
    expect((await activateCard(client, 'c1')).data.status).toBe('active');
    expect((await deactivateCard(client, 'c1')).data.status).toBe('suspended');
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      'POST /institutions/cards', 'PUT /institutions/cards/c%2F1/renew', 'PUT /institutions/cards/pin/c1/change',
      'PUT /institutions/cards/pin/c1/reset', 'PUT /institutions/cards/c1/customer', 'GET /institutions/cards/c1/activate', 'GET /institutions/cards/c1/deactivate',
    ]);
    expect(calls[1]!.body).toEqual({ expiration: '202912', renewReason: 'RENEW' });
    expect(calls[2]!.body).toEqual({ oldPIN: block, newPIN: block });
    expect(calls[3]!.body).toEqual({ newPIN: block });
  });

  it('card programs: undefined when the sandbox helper is absent (404), errors otherwise', async () => {
    const { client, answer } = setup();
    answer('GET', '/sandbox/card-programs', undefined, 404);
    expect(await listCardPrograms(client)).toBeUndefined();
    answer('GET', '/sandbox/card-programs', undefined, 422);
    await expect(listCardPrograms(client)).rejects.toBeInstanceOf(RejectedError);
  });
});
