// The Artillery processor of `simulate load --export artillery` (docs/load-past-one-machine.md):
// each virtual user sends one message of the run's traffic straight to the webhook, as the
// sandbox's switch would: the next intent of the mix, the cards and channels in turn, reversals
// of this runner's approved authorizations and financials, signed at send time in the program's
// scheme with the secret of CARDCTL_WEBHOOK_SECRET, and its reply judged by the protocol's rule.
//
// The build bundles this file with what it imports (the switch's message builder, the protocol's
// signing and reply rules, the mix) into one CommonJS file that needs only Node: the person who
// runs Artillery may not have cardctl. Not imported by cardctl itself. Hooks are plain functions
// with callbacks, the form every Artillery 2 calls.
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isApproved, MTI, processingFlowOf, type Channel } from '../../iso8583/codes.js';
import type { SwitchMessage } from '../../iso8583/message.js';
import { buildRequest, DEFAULT_MERCHANT, DEFAULT_METHOD, DEFAULT_TERMINAL, retrievalReferenceNumber, type CardData } from '../../webhook-protocol/request.js';
import { judgeHttpReply, MAX_REPLY_BYTES, type ReplyFailure } from '../../webhook-protocol/reply.js';
import { signMessage } from '../../webhook-protocol/signature-faults.js';
import { intentSequence, roundRobin, type Intent } from '../mix.js';
import { Originals } from '../originals.js';
import { COUNTERS, EXPORT_FILES, SECRET_VARIABLE, type CardPoolFile, type Traffic } from './files.js';

/** What Artillery hands a hook: the virtual user's variables, and its event emitter (metrics). */
interface VuContext {
  vars: Record<string, unknown>;
}
interface Events {
  emit(kind: 'counter', name: string, value: number): void;
}
type Done = (error?: Error) => void;

/** A message of this runner, as sent: what its reply is judged against, and what a reversal of it needs. */
interface Sent {
  intent: Intent;
  message: SwitchMessage;
  card: CardData;
  channel: Channel;
}

// Read once per runner (Artillery loads the processor in each worker), beside this file.
const secret = process.env[SECRET_VARIABLE] ?? '';
if (secret === '') throw new Error(`${SECRET_VARIABLE} is not set: export the card program's webhook secret before running this script (it is never written into the export)`);
const readJson = <T>(name: string): T => JSON.parse(readFileSync(join(__dirname, name), 'utf8')) as T;
const traffic = readJson<Traffic>(EXPORT_FILES.traffic);
const cards = readJson<CardPoolFile>(EXPORT_FILES.cards).cards;

const nextIntent = intentSequence(traffic.mix);
const nextCard = roundRobin(cards);
const nextChannel = roundRobin(traffic.channels as Channel[]);
// Artillery sends at a rate whatever the answers: the open loop, one schedule per runner.
const originals = new Originals(1, false);
const approved = new Map<string, Sent>();
// STANs unique per runner and day, as the switch's: each runner starts at its own random place,
// so runners (workers, Fargate tasks) rarely send the same STAN in the same hour.
let stan = randomInt(1, 999_999);
let countersStarted = false;

function count(events: Events, name: string): void {
  events.emit('counter', name, 1);
}

/** Every counter at 0 once per runner, so each is in the report even when nothing counted it (an `ensure` on a missing one fails). */
function startCounters(events: Events): void {
  if (countersStarted) return;
  countersStarted = true;
  for (const name of Object.values(COUNTERS)) events.emit('counter', name, 0);
}

function nextStan(): string {
  stan = (stan % 999_999) + 1;
  return String(stan).padStart(6, '0');
}

/** A message as the switch builds it, now: authorization, financial, or the reversal of `original`. */
function messageOf(intent: Intent, card: CardData, channel: Channel, original?: SwitchMessage): SwitchMessage {
  const date = new Date();
  const stanText = nextStan();
  const request = buildRequest({
    intent,
    flow: (original && processingFlowOf(original['3'] ?? '')) || 'purchase',
    amountField4: traffic.amountField4,
    currency: original?.['49'] ?? traffic.currency,
    card,
    channel,
    method: DEFAULT_METHOD[channel],
    merchantId: original?.['42'] ?? DEFAULT_MERCHANT,
    terminalId: original?.['41'] ?? DEFAULT_TERMINAL[channel],
    stan: stanText,
    rrn: retrievalReferenceNumber(date, stanText),
    date,
    ...(original ? { original } : {}),
  });
  request['0'] = MTI[intent].request;
  return request;
}

const keyOf = (message: SwitchMessage) => `${message['11']}:${message['37']}`;

/**
 * Flow step: the virtual user's message. A reversal takes the oldest approved original of this
 * runner, waiting for one up to the deadline while one may still come; none: not sent
 * (`cardctlSend` false, counted under cardctl.not_sent).
 */
export function cardctlNextMessage(context: VuContext, events: Events, done: Done): void {
  startCounters(events);
  const intent = nextIntent();
  const ready = (sent: Sent | undefined) => {
    context.vars.cardctlSent = sent;
    context.vars.cardctlSend = sent !== undefined;
    if (!sent) count(events, COUNTERS.notSent);
    done();
  };
  if (intent !== 'reversal') {
    originals.sent();
    const channel = nextChannel();
    const { id: _id, ...card } = nextCard();
    ready({ intent, message: messageOf(intent, card, channel), card, channel });
    return;
  }
  originals.take(AbortSignal.timeout(traffic.reversalWaitMs)).then((key) => {
    const original = key === undefined ? undefined : approved.get(key);
    if (key !== undefined) approved.delete(key);
    ready(original && { intent, message: messageOf('reversal', original.card, original.channel, original.message), card: original.card, channel: original.channel });
  }, done);
}

/** beforeRequest: the body and its signature, made as it goes out (the timestamp is the send's). */
export function cardctlSign(requestParams: { body?: string; headers?: Record<string, string> }, context: VuContext, events: Events, next: Done): void {
  const { message } = context.vars.cardctlSent as Sent;
  const signed = signMessage(traffic.scheme, [secret], message, undefined);
  requestParams.body = signed.body;
  requestParams.headers = {
    ...requestParams.headers,
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': 'cardctl-load-artillery',
    ...signed.headers,
    ...(traffic.secretHeader && signed.secretHeader !== undefined ? { [traffic.secretHeader]: signed.secretHeader } : {}),
  };
  count(events, COUNTERS.requests);
  next();
}

/** This runner's original was answered: approved (it may be reversed) or not. */
function originalAnswered(sent: Sent, approvedNow: boolean): void {
  if (sent.intent === 'reversal') return;
  if (approvedNow) approved.set(keyOf(sent.message), sent);
  originals.answered(approvedNow ? keyOf(sent.message) : undefined);
}

/** A failed request: counted by cause and as an error of the virtual user (Artillery's `errors.<cause>`). */
function failed(events: Events, counter: string, cause: string, reason: string): Error {
  count(events, counter);
  count(events, COUNTERS.failed);
  return Object.assign(new Error(reason), { code: cause });
}

/** afterResponse: the reply judged by the rule the sandbox judges a webhook's reply by. */
export function cardctlCheckReply(
  _requestParams: unknown,
  response: { statusCode: number; headers: Record<string, string | string[] | undefined>; body?: unknown },
  context: VuContext,
  events: Events,
  next: Done,
): void {
  const sent = context.vars.cardctlSent as Sent;
  const text = typeof response.body === 'string' ? response.body : Buffer.isBuffer(response.body) ? response.body.toString('utf8') : '';
  const type = response.headers['content-type'];
  const verdict = judgeHttpReply(sent.message, {
    status: response.statusCode,
    contentType: Array.isArray(type) ? type[0] : type,
    body: Buffer.byteLength(text) > MAX_REPLY_BYTES ? undefined : text,
  });
  if (!verdict.ok) {
    originalAnswered(sent, false);
    next(failed(events, verdict.cause === 'http-error' ? COUNTERS.httpError : COUNTERS.invalidReply, verdict.cause, verdict.reason));
    return;
  }
  const approvedNow = isApproved(verdict.reply['39']);
  count(events, approvedNow ? COUNTERS.approved : COUNTERS.declined);
  originalAnswered(sent, approvedNow);
  next();
}

/** The causes cardctlCheckReply fails a request with (counted there). */
const REPLY_FAILURES: ReadonlySet<string | undefined> = new Set<ReplyFailure>(['http-error', 'invalid-reply']);

/** onError: no reply at all, by the deadline (timeout) or at all (unreachable). */
export function cardctlOnError(error: { code?: string; name?: string }, _requestParams: unknown, context: VuContext, events: Events, next: Done): void {
  if (REPLY_FAILURES.has(error.code)) return next();
  const sent = context.vars.cardctlSent as Sent | undefined;
  if (sent) originalAnswered(sent, false);
  const timedOut = error.code === 'ETIMEDOUT' || error.name === 'TimeoutError';
  count(events, timedOut ? COUNTERS.timeout : COUNTERS.unreachable);
  count(events, COUNTERS.failed);
  next();
}
