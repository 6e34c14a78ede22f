// POST /sandbox/card-pool: the cards of a load run as the switch puts them into messages (the
// clear PAN the exported processor needs), in the order asked, with their program's webhook
// settings but never its secret; an unknown card is a 404. Its scope is in the authorization sweep.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, createCard, startTestSandbox, type Sandbox, type DataEnvelope } from './helpers.js';
import type { CardProgram, CardPool } from '../../src/api/schemas.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox();
});
afterAll(async () => sandbox?.close());

it('gives each card in the clear, in order, and the program without its secret', async () => {
  const secret = 'pool-test-secret-0123456789';
  const program = await call<DataEnvelope<CardProgram>>(sandbox, 'PUT', `/sandbox/card-programs/${sandbox.cardProgramId}`, { token: sandbox.token, body: { webHookConfig: { url: 'http://127.0.0.1:9/auth', secret, header: 'X-Secret' } } });
  expect(program.status, program.text).toBe(200);
  const [first, second] = [await createCard(sandbox), await createCard(sandbox)];
  const pool = await call<DataEnvelope<CardPool>>(sandbox, 'POST', '/sandbox/card-pool', { token: sandbox.token, body: { cardIds: [second!.id, first!.id] } });
  expect(pool.status, pool.text).toBe(200);
  expect(pool.body.data.cards.map((card: { id: string }) => card.id)).toEqual([second!.id, first!.id]);
  for (const card of pool.body.data.cards) expect(card).toMatchObject({ pan: expect.stringMatching(/^\d{16,19}$/), expiry: expect.stringMatching(/^\d{4}$/), serviceCode: expect.any(String), cardProgram: sandbox.cardProgramId });
  expect(pool.body.data.programs).toEqual([{ id: sandbox.cardProgramId, webhook: { url: 'http://127.0.0.1:9/auth', type: 'http', header: 'X-Secret' } }]);
  expect(pool.text).not.toContain(secret);
});

it('an unknown card is a 404 naming it', async () => {
  const pool = await call<DataEnvelope<CardPool>>(sandbox, 'POST', '/sandbox/card-pool', { token: sandbox.token, body: { cardIds: ['no-such-card'] } });
  expect(pool.status).toBe(404);
  expect(pool.body.message).toBe('card no-such-card not found');
});
