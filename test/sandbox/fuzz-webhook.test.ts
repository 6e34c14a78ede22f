// Fuzzing what an institution's webhook may answer in forward mode: random JSON, random bytes
// under random content types and statuses, and echoes of the request with fields dropped,
// replaced by wrong types, random or long strings (within the 64 KiB bound), another MTI or a
// random field 39; for authorizations, financials and reversals. The simulate route must answer
// 200 every time (never a 5xx, never a stack trace), an approval only for a reply that really
// answers the request (or a reversal that stands without one: the network stood in), a pristine
// echo always with its own code, and the stored transaction (and a reversal's original) must
// agree with the answer.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MUST_ECHO } from '../../src/webhook-protocol/reply.js';
import { call, startTestSandbox, type Sandbox, type DataEnvelope } from './helpers.js';
import { auth, cardOf, createProgram, simulate, startWebhook, type Received, type TestWebhook } from './switch-helpers.js';
import { present } from '../helpers/json.js';
import type { Transaction, SandboxHealth } from '../../src/api/schemas.js';

const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const RUNS = Math.max(20, Math.round(FUZZ_RUNS / 2));

type Reply = { status: number; type: string | undefined; body: (received: Received) => string | Buffer };
interface EchoRecipe { drop: string[]; set: Record<string, unknown>; code: unknown; mti: 'right' | 'request' | 'other' | 'missing' }

const STATUSES = fc.oneof({ weight: 6, arbitrary: fc.constant(200) }, { weight: 1, arbitrary: fc.constantFrom(201, 202, 204, 301, 400, 401, 404, 500, 502, 503) });
const TYPES = fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constantFrom(undefined, 'text/plain', 'text/html; charset=utf-8', 'application/json; charset=utf-8', 'application/octet-stream', 'application/xml', 'json') });
const FIELD = fc.oneof(fc.constantFrom('0', '2', '3', '4', '7', '11', '12', '13', '37', '38', '39', '41', '42', '49', '90', '102', '123'), fc.integer({ min: 0, max: 999 }).map(String));
const VALUE = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.integer().map((n) => n as unknown),
  fc.double(),
  fc.constantFrom(null, true, false, [], {}, ['00'], { '39': '00' }, '', '00', '000000000000', '\u0000', '0110'),
  fc.integer({ min: 1_000, max: 60_000 }).map((n) => 'x'.repeat(n)),
);
const CODE = fc.oneof({ weight: 6, arbitrary: fc.constantFrom('00', '00', '05', '51', '91', '96', 'A1') },
  { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: 0, max: 99 }), fc.constant(null)) });
const ECHO: fc.Arbitrary<EchoRecipe> = fc.record({
  drop: fc.oneof({ weight: 4, arbitrary: fc.constant([] as string[]) }, { weight: 1, arbitrary: fc.uniqueArray(FIELD, { maxLength: 3 }) }),
  set: fc.oneof({ weight: 4, arbitrary: fc.constant({} as Record<string, unknown>) }, { weight: 1, arbitrary: fc.dictionary(FIELD, VALUE, { maxKeys: 3 }) }),
  code: CODE,
  mti: fc.oneof({ weight: 6, arbitrary: fc.constant('right' as const) }, { weight: 1, arbitrary: fc.constantFrom('request' as const, 'other' as const, 'missing' as const) }),
});

function echoBody(recipe: EchoRecipe, message: Record<string, string>): Record<string, unknown> {
  const reply: Record<string, unknown> = { ...message };
  const mti = message['0'] ?? '0100';
  const responseMti = `${mti.slice(0, 2)}${Number(mti[2]) + 1}${mti[3]}`;
  if (recipe.mti === 'right') reply['0'] = responseMti;
  else if (recipe.mti === 'other') reply['0'] = '0810';
  else if (recipe.mti === 'missing') delete reply['0'];
  reply['39'] = recipe.code;
  for (const field of recipe.drop) delete reply[field];
  Object.assign(reply, recipe.set);
  return reply;
}

const REPLY: fc.Arbitrary<{ reply: Reply; pristine?: string; label: string }> = fc.oneof(
  { weight: 4, arbitrary: fc.tuple(ECHO, STATUSES, TYPES).map(([recipe, status, type]) => ({
    reply: { status, type, body: (received: Received) => JSON.stringify(echoBody(recipe, received.message)) },
    // An untouched echo with a valid code, 2xx and JSON: the transaction must get that code.
    pristine: recipe.drop.length === 0 && Object.keys(recipe.set).length === 0 && recipe.mti === 'right' && typeof recipe.code === 'string'
      && /^[0-9A-Z]{2}$/.test(recipe.code) && status >= 200 && status < 300 && status !== 204 && type?.startsWith('application/json') ? recipe.code : undefined,
    label: `echo ${JSON.stringify({ ...recipe, set: Object.fromEntries(Object.entries(recipe.set).map(([k, v]) => [k, typeof v === 'string' && v.length > 40 ? `${v.length} chars` : v])) })} HTTP ${status} ${type}`,
  })) },
  { weight: 1, arbitrary: fc.tuple(fc.jsonValue({ maxDepth: 3 }), STATUSES, TYPES).map(([value, status, type]) => ({
    reply: { status, type, body: () => JSON.stringify(value) ?? 'null' }, label: `json ${JSON.stringify(value)?.slice(0, 100)} HTTP ${status} ${type}`,
  })) },
  { weight: 1, arbitrary: fc.tuple(fc.uint8Array({ maxLength: 2048 }), STATUSES, TYPES).map(([bytes, status, type]) => ({
    reply: { status, type, body: () => Buffer.from(bytes) }, label: `${bytes.length} random bytes HTTP ${status} ${type}`,
  })) },
);

let sb: Sandbox;
let hook: TestWebhook;
let card: { id: string };

beforeAll(async () => {
  sb = await startTestSandbox();
  hook = await startWebhook();
  const open = { enabled: true, dailyLimit: { count: 0, amount: 0 } };
  const program = await createProgram(sb, { webHookConfig: { url: hook.url, secret: 'whsec_fuzz' }, channels: { pos: open, atm: open, web: open } });
  card = await cardOf(sb, program.id);
});
afterAll(async () => {
  await sb?.close();
  await hook?.close();
});

const STACK = /\n\s+at |at [\w.<>]+ \(.*:\d+:\d+\)|node:internal/;

describe('forward mode under random webhook replies', () => {
  it('answers 200 with a consistent transaction for every reply; no 5xx, no stack trace', async () => {
    const failures: string[] = [];
    const seen = { approved: 0, declined: 0, failed: 0, pristine: 0, reversals: 0 };
    await fc.assert(fc.asyncProperty(REPLY, fc.constantFrom('authorization', 'financial', 'reversal'), fc.integer({ min: 1, max: 99_999 }), async ({ reply, pristine, label }, intent, cents) => {
      const amount = cents / 100;
      let original: string | undefined;
      if (intent === 'reversal') {
        const made = await simulate(sb, auth(card.id, { amount }));
        original = made.body.data.transactionId;
      }
      hook.received.length = 0;
      hook.respond((received, res) => {
        const body = reply.body(received);
        res.writeHead(reply.status, reply.type ? { 'content-type': reply.type } : {}).end(reply.status === 204 ? undefined : body);
      });
      const body = intent === 'reversal'
        ? { intent, processingFlow: 'purchase', amount, originalTransactionId: original, responseMode: 'forward' }
        : { intent, processingFlow: 'purchase', amount, cardId: card.id, responseMode: 'forward' };
      const response = await simulate(sb, body);
      const where = `${intent} ${label} → ${response.status} ${response.text.slice(0, 300)}`;
      if (response.status >= 500 || STACK.test(response.text)) failures.push(where);
      expect(response.status, where).toBe(200);
      expect(response.text, where).not.toMatch(STACK);
      const data = response.body.data;
      expect(data.responseCode, where).toMatch(/^[0-9A-Z]{2}$/);
      const approved = data.responseCode === '00';
      seen[approved ? 'approved' : data.responseCode === '96' ? 'failed' : 'declined'] += 1;
      if (pristine) seen.pristine += 1;
      if (original) seen.reversals += 1;
      expect(response.body.status, where).toBe(approved ? 'success' : 'failed');

      // An approval only for a reply that answers the request (checked here independently), or a
      // reversal that stands without one (the network stood in; it is repeated until acknowledged).
      // Repeats of earlier reversals may reach the webhook meanwhile: this message is found by its STAN.
      const delivery = hook.received.find((r) => r.message['11'] === data.stan && r.message['0'] === data.mti);
      const sent = delivery?.message ?? {};
      const stoodIn = intent === 'reversal' && data.standIn !== undefined;
      if (stoodIn) expect(present(data.standIn, 'the stand-in decision').decision, where).toBe('00');
      if (approved && !stoodIn) {
        const text = reply.body(delivery!);
        const parsed = JSON.parse(text.toString());
        expect(reply.status, where).toBeGreaterThanOrEqual(200);
        expect(reply.status, where).toBeLessThan(300);
        for (const field of MUST_ECHO) if (sent[field] !== undefined) expect(String(parsed[field]), `${where} field ${field}`).toBe(sent[field]);
        expect(parsed['39'], where).toBe('00');
      }
      if (pristine) expect(data.responseCode, where).toBe(pristine);

      // The stored transaction says the same, and is settled.
      const stored = (await call<DataEnvelope<Transaction>>(sb, 'GET', `/institutions/transactions/${data.transactionId}`, { token: sb.token })).body.data;
      const status = !approved ? 'failed' : intent === 'authorization' ? 'pending' : 'completed';
      expect(stored, where).toMatchObject({ responseCode: data.responseCode, transactionStatus: status, response: { '39': data.responseCode } });
      if (stoodIn) expect(stored.advice, where).toMatchObject({ acknowledged: false, attempts: 1 });
      expect(sb.deps.store.transactions.getStored(sb.institutionId, data.transactionId)!.state, where).toBe(approved ? 'approved' : 'declined');
      if (data.responseCode === '96' && response.body.message.includes('—')) expect(stored.timestamps.institutionToService.description, where).not.toBe('');
      if (original) {
        const before = sb.deps.store.transactions.getStored(sb.institutionId, original)!;
        expect(before.state, where).toBe(approved ? 'reversed' : 'approved');
        expect(before.record.reversed, where).toBe(approved);
      }
    }), { seed: SEED, numRuns: RUNS });
    expect(failures).toEqual([]);
    if (process.env.FUZZ_VERBOSE) console.log(seen);
    // The generators reach every kind of outcome, so the checks above were exercised.
    for (const [kind, count] of Object.entries(seen)) expect(count, kind).toBeGreaterThan(0);
    const health = await call<SandboxHealth>(sb, 'GET', '/sandbox/health');
    expect(health.status).toBe(200);
  }, 180_000);
});
