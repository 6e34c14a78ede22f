// `simulate load --export artillery` without Artillery: the flags it takes, the SLOs as ensure
// conditions, and the bundled processor driven through its hooks: each message signed so the
// sandbox's verifier accepts it, reversals of approved originals, and every reply judged exactly
// as the sandbox's rule (judgeHttpReply) judges it.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import processorText from 'cardctl:artillery-processor';
import { afterAll, describe, expect, it } from 'vitest';
import { COUNTERS, EXPORT_FILES, SECRET_VARIABLE, type CardPoolFile, type Traffic } from '../../src/load/artillery/files.js';
import { ensureConditions, parseExport, phasesOf } from '../../src/load/artillery/export.js';
import { buildResponse, judgeHttpReply, MAX_REPLY_BYTES } from '../../src/webhook-protocol/reply.js';
import { verifyRequest, type SignatureScheme } from '../../src/webhook-protocol/signature.js';
import type { SwitchMessage } from '../../src/iso8583/message.js';
import { tempDir } from '../helpers/cli.js';

const dirs = tempDir('cardctl-artillery-');
afterAll(() => dirs.remove());

const rate = { kind: 'rate', perSecond: 10 } as const;
const bounds = { durationMs: 3000, count: 10_000_000 };

describe('--export artillery DIR: what Artillery can run, refused before anything is read', () => {
  it.each([
    [{ export: ['artillery'] }, rate, /expected a format \(artillery\) and a directory/],
    [{ export: ['k6', 'dir'] }, rate, /expected a format/],
    [{ export: ['artillery', 'a', 'b'] }, rate, /expected a format/],
    [{ export: ['artillery', 'd'] }, { kind: 'concurrency', senders: 4 } as const, /needs --rate/],
    [{ export: ['artillery', 'd'], count: '100' }, rate, /not --count/],
    [{ export: ['artillery', 'd'] }, { kind: 'rate', perSecond: 2.5 } as const, /whole requests a second/],
    [{ export: ['artillery', 'd'], url: 'ftp://x' }, rate, /not an http\(s\) URL/],
    [{ url: 'http://127.0.0.1:1/' }, rate, /--url is for --export/],
  ])('%j is refused', (opts, shape, message) => {
    expect(() => parseExport(opts, shape, bounds)).toThrow(message);
  });

  it('whole seconds only, and a directory that is new or empty', () => {
    expect(() => parseExport({ export: ['artillery', join(dirs.path, 'x')], duration: '1500ms' }, rate, { ...bounds, durationMs: 1500 })).toThrow(/whole seconds/);
    const full = join(dirs.path, 'full');
    mkdirSync(full);
    writeFileSync(join(full, 'other'), '');
    expect(() => parseExport({ export: ['artillery', full] }, rate, bounds)).toThrow(/is not empty/);
    expect(parseExport({ export: ['artillery', join(dirs.path, 'new')], url: 'http://127.0.0.1:9/auth' }, rate, bounds))
      .toEqual({ dir: join(dirs.path, 'new'), url: 'http://127.0.0.1:9/auth', ratePerSecond: 10, durationSeconds: 3 });
    expect(parseExport({}, rate, bounds)).toBeUndefined();
  });
});

describe('--ramp, --rate and --duration as Artillery phases', () => {
  it('a ramp from 0 up to the rate (whole seconds), then the rate for the duration', () => {
    const plan = parseExport({ export: ['artillery', join(dirs.path, 'ramped')] }, { kind: 'rate', perSecond: 50, rampMs: 30_000 }, { durationMs: 300_000, count: 10_000_000 });
    expect(phasesOf(plan!)).toEqual([
      { name: 'ramp to 50/s over 30 s', duration: 30, arrivalRate: 0, rampTo: 50 },
      { name: '50/s for 300 s', duration: 300, arrivalRate: 50 },
    ]);
    expect(phasesOf({ ratePerSecond: 10, durationSeconds: 3 })).toEqual([{ name: '10/s for 3 s', duration: 3, arrivalRate: 10 }]);
    expect(() => parseExport({ export: ['artillery', 'd'] }, { kind: 'rate', perSecond: 5, rampMs: 1500 }, bounds)).toThrow(/--ramp 1500 ms for --export artillery: give whole seconds/);
  });
});

describe('the SLO flags as ensure conditions', () => {
  it('errors at most 0% unless --max-errors; each flag its condition over the processor counters', () => {
    expect(ensureConditions({}).map((c) => c.expression)).toEqual(['cardctl.no_valid_answer / cardctl.requests <= 0']);
    expect(ensureConditions({ maxErrors: 0.01, maxP99Ms: 1500, maxTimeouts: 0.001, minApproval: 0.95 }).map((c) => c.expression)).toEqual([
      'cardctl.no_valid_answer / cardctl.requests <= 0.01',
      'http.response_time.p99 <= 1500',
      'cardctl.timeout / cardctl.requests <= 0.001',
      'cardctl.approved / cardctl.requests >= 0.95',
    ]);
  });

  it('no counter name is part of another (the ensure plugin finds metric names in its expressions by text)', () => {
    const names = Object.values(COUNTERS);
    for (const name of names) expect(names.filter((other) => other !== name && other.includes(name)), name).toEqual([]);
  });
});

/** What the processor emitted, and the error a hook gave, if any. */
function fakeEvents() {
  const counters = new Map<string, number>();
  return { counters, emit: (_kind: 'counter', name: string, value: number) => counters.set(name, (counters.get(name) ?? 0) + value) };
}

interface Processor {
  cardctlNextMessage(context: { vars: Record<string, unknown> }, events: unknown, done: (error?: Error) => void): void;
  cardctlSign(params: { body?: string; headers?: Record<string, string> }, context: unknown, events: unknown, next: (error?: Error) => void): void;
  cardctlCheckReply(params: unknown, response: { statusCode: number; headers: Record<string, string>; body: string }, context: unknown, events: unknown, next: (error?: Error & { code?: string }) => void): void;
  cardctlOnError(error: { code?: string }, params: unknown, context: unknown, events: unknown, next: () => void): void;
}

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const CARD = { id: 'card-1', pan: '5399830000000013', expiry: '2912', serviceCode: '101', account: '0123456789' };
let loaded = 0;

/** The bundled processor in a directory of its own beside its data files, loaded as Artillery loads it (require). */
function loadProcessor(traffic: Partial<Traffic>, secret: string | undefined = SECRET): Processor {
  const dir = join(dirs.path, `processor-${++loaded}`);
  mkdirSync(dir);
  const full: Traffic = { mix: [{ intent: 'authorization', weight: 1 }], channels: ['pos'], amountField4: '000000001000', currency: '566', scheme: 'cardctl', reversalWaitMs: 200, ...traffic };
  const cards: CardPoolFile = { sandboxTestData: 'test', cards: [CARD] };
  writeFileSync(join(dir, EXPORT_FILES.processor), processorText);
  writeFileSync(join(dir, EXPORT_FILES.traffic), JSON.stringify(full));
  writeFileSync(join(dir, EXPORT_FILES.cards), JSON.stringify(cards));
  const before = process.env[SECRET_VARIABLE];
  if (secret === undefined) delete process.env[SECRET_VARIABLE];
  else process.env[SECRET_VARIABLE] = secret;
  try {
    return createRequire(import.meta.url)(join(dir, EXPORT_FILES.processor)) as Processor;
  } finally {
    if (before === undefined) delete process.env[SECRET_VARIABLE];
    else process.env[SECRET_VARIABLE] = before;
  }
}

/** One virtual user through the flow: its message, the request as signed, and the reply judged. */
async function send(processor: Processor, answer: (message: SwitchMessage) => { statusCode: number; headers: Record<string, string>; body: string }) {
  const events = fakeEvents();
  const context = { vars: {} as Record<string, unknown> };
  await new Promise<void>((resolve, reject) => processor.cardctlNextMessage(context, events, (error) => (error ? reject(error) : resolve())));
  if (!context.vars.cardctlSend) return { events, sent: undefined };
  const params: { body?: string; headers?: Record<string, string> } = {};
  processor.cardctlSign(params, context, events, () => undefined);
  const message = JSON.parse(params.body!) as SwitchMessage;
  let failure: (Error & { code?: string }) | undefined;
  processor.cardctlCheckReply(params, answer(message), context, events, (error) => (failure = error));
  return { events, sent: { message, params }, failure };
}

const json = (body: unknown, status = 200) => ({ statusCode: status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('one reply rule', () => {
  it('no module of src/ but reply.ts applies its steps (a reply judged elsewhere goes through judgeHttpReply)', () => {
    const root = new URL('../../src/', import.meta.url);
    const modules = (readdirSync(root, { recursive: true }) as string[]).filter((path) => path.endsWith('.ts') && path !== join('webhook-protocol', 'reply.ts'));
    const copies = modules.filter((path) => /\b(validateReply|isJsonContentType)\(/.test(readFileSync(new URL(path, root), 'utf8')));
    expect(copies).toEqual([]);
  });
});

describe('the bundled processor', () => {
  it('needs only Node: it requires no module but node: ones, and refuses to start without the secret', () => {
    expect(processorText.match(/require\("([^"]+)"\)/g)?.every((call) => call.startsWith('require("node:'))).toBe(true);
    expect(() => loadProcessor({}, '')).toThrow(/CARDCTL_WEBHOOK_SECRET is not set/);
  });

  it.each(['cardctl', 'standard-webhooks'] as SignatureScheme[])('signs each message in the %s scheme so the sandbox\'s verifier accepts it, the secret header too', async (scheme) => {
    const processor = loadProcessor({ scheme, secretHeader: 'x-program-secret' });
    const { sent, events } = await send(processor, (message) => json(buildResponse(message, '00', '123456')));
    expect(verifyRequest(scheme, sent!.params.headers!, SECRET, sent!.params.body!)).toMatchObject({ ok: true });
    expect(sent!.params.headers!['x-program-secret']).toBe(SECRET);
    expect(sent!.message).toMatchObject({ 0: '0100', 2: CARD.pan, 4: '000000001000', 14: CARD.expiry, 35: `${CARD.pan}=2912101${'10000000'}`, 49: '566', 102: CARD.account });
    expect(Object.fromEntries(events.counters)).toMatchObject({ [COUNTERS.requests]: 1, [COUNTERS.approved]: 1, [COUNTERS.failed]: 0 });
  });

  it('reverses the oldest approved original of the run (0420, field 90 its MTI, STAN and time); none approved: not sent', async () => {
    const processor = loadProcessor({ mix: [{ intent: 'authorization', weight: 1 }, { intent: 'reversal', weight: 1 }] });
    const first = await send(processor, (message) => json(buildResponse(message, '00', '123456')));
    const reversal = await send(processor, (message) => json(buildResponse(message, '00')));
    const original = first.sent!.message;
    expect(reversal.sent!.message).toMatchObject({ 0: '0420', 2: CARD.pan, 3: original['3'], 90: `0100${original['11']}${original['7']}${'0'.repeat(22)}` });
    const declined = await send(processor, (message) => json(buildResponse(message, '51')));
    expect(Object.fromEntries(declined.events.counters)).toMatchObject({ [COUNTERS.declined]: 1 });
    const nothing = await send(processor, () => { throw new Error('not sent'); });
    expect(nothing.sent).toBeUndefined();
    expect(nothing.events.counters.get(COUNTERS.notSent)).toBe(1);
  });

  it('judges every reply as the sandbox does: the same verdict and cause, counted, and the virtual user failed', async () => {
    const processor = loadProcessor({});
    const replies: Array<[string, (message: SwitchMessage) => { statusCode: number; headers: Record<string, string>; body: string }]> = [
      ['approved', (m) => json(buildResponse(m, '00', '123456'))],
      ['declined', (m) => json(buildResponse(m, '05'))],
      ['HTTP 503', () => json({ error: 'unavailable' }, 503)],
      ['HTTP 401', () => json({ error: 'invalid signature' }, 401)],
      ['no content type', (m) => ({ statusCode: 200, headers: {}, body: JSON.stringify(buildResponse(m, '00')) })],
      ['text/plain', (m) => ({ statusCode: 200, headers: { 'content-type': 'text/plain' }, body: JSON.stringify(buildResponse(m, '00')) })],
      ['not JSON', () => ({ statusCode: 200, headers: { 'content-type': 'application/json' }, body: 'garbage' })],
      ['wrong MTI', (m) => json({ ...buildResponse(m, '00'), 0: '0210' })],
      ['no field 39', (m) => { const { 39: _code, ...rest } = buildResponse(m, '00'); return json(rest); }],
      ['amount changed', (m) => json({ ...buildResponse(m, '00'), 4: '000000009999' })],
      ['STAN not echoed', (m) => { const { 11: _stan, ...rest } = buildResponse(m, '00'); return json(rest); }],
      ['over 64 KiB', (m) => json({ ...buildResponse(m, '00'), 48: 'x'.repeat(MAX_REPLY_BYTES) })],
    ];
    for (const [name, reply] of replies) {
      let expected: ReturnType<typeof judgeHttpReply> | undefined;
      const { failure, events } = await send(processor, (message) => {
        const answer = reply(message);
        expected = judgeHttpReply(message, { status: answer.statusCode, contentType: answer.headers['content-type'], body: Buffer.byteLength(answer.body) > MAX_REPLY_BYTES ? undefined : answer.body });
        return answer;
      });
      if (expected!.ok) {
        expect(failure, name).toBeUndefined();
      } else {
        expect({ code: failure?.code, message: failure?.message }, name).toEqual({ code: expected!.cause, message: expected!.reason });
        expect(events.counters.get(expected!.cause === 'http-error' ? COUNTERS.httpError : COUNTERS.invalidReply), name).toBe(1);
        expect(events.counters.get(COUNTERS.failed), name).toBe(1);
      }
    }
  });

  it('no reply: a timeout or unreachable, each an error', () => {
    const processor = loadProcessor({});
    for (const [error, counter] of [[{ code: 'ETIMEDOUT' }, COUNTERS.timeout], [{ code: 'ECONNREFUSED' }, COUNTERS.unreachable]] as const) {
      const events = fakeEvents();
      processor.cardctlOnError(error, {}, { vars: {} }, events, () => undefined);
      expect(Object.fromEntries(events.counters)).toEqual({ [counter]: 1, [COUNTERS.failed]: 1 });
    }
  });
});
