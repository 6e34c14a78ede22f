// The local webhook of `cardctl webhook listen`: a node:http server that plays the
// institution. For each POSTed switch message it checks the signature in its scheme (when it
// knows the secret), decides the response code (--respond, --rules) or relays the message to the
// operator's own handler (--forward-to), and answers with a response message: the response MTI
// (reply.ts: 0100 and its repeat 0101 → 0110), the request echoed (without card secrets), 38
// when approved, 39.
//
// With --forward-to, the handler's reply is judged by the sandbox's own rules (reply.ts): only
// a 2xx JSON response message that answers the request is relayed; a timeout (504), a refused
// connection, an error status, an oversized or invalid reply (502) are answered as failures,
// never as an approval, and logged as what they were.
//
// Institution behaviours a scenario needs: a partial approval (code 10 with a lower field 4),
// a delay, failing every Nth message (HTTP 500: the network stands in), and answering a repeat
// (history.ts: the same STAN, RRN and message again, or its repeat: a 0101, a duplicate
// delivery) as the first time or, to test the sandbox's bookkeeping, otherwise. Relaying, the
// repeats are found the same way, and marked by whether the handler answered them alike.
import { randomInt } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { currencyInfo, formatAmount, isField4, parseAmount } from '../iso8583/amount.js';
import { channelOfConditionCode, isApproved, responseMessage } from '../iso8583/codes.js';
import { redactMessage, type SwitchMessage } from '../iso8583/message.js';
import { maskPan } from '../core/redact.js';
import { connectToLoopback } from '../api/undici.js';
import { verifyRequest, type SignatureScheme } from '../webhook-protocol/signature.js';
import { buildResponse, PARTIAL_APPROVAL_CODE, sameAnswer, WEBHOOK_TIMEOUT_MS } from '../webhook-protocol/reply.js';
import { decide, type DefaultAnswer, type RepeatBehaviour, type RuleSet } from './rules.js';
import { MAX_BODY_BYTES } from './behaviours.js';
import { relay, type ForwardOutcome } from './relay.js';
import { ExchangeHistory, repeatKey, type Entry, type HistoryBound, type LoggedExchange } from './history.js';

export interface ListenerOptions {
  port: number;
  host: string;
  /** Response code when no rule decides (default 00). */
  respond: string;
  rules?: RuleSet;
  /** Verify signatures with this secret; undefined = not checked. */
  secret?: string;
  /** The signature scheme verified (default cardctl: X-Webhook-Signature). */
  scheme?: SignatureScheme;
  /**
   * Relay each message to this URL and answer with its reply. On this machine only (the egress
   * rule, src/core/loopback.ts): checked at start, and connected by the address checked.
   */
  forwardTo?: string;
  /**
   * Timeout of a --forward-to call, ms: by default half a second under the sandbox's own
   * deadline, so the switch hears the 504 before it gives up.
   */
  forwardTimeoutMs?: number;
  /** How messages no rule decides are answered (delay, approved amount with code 10). */
  defaults?: DefaultAnswer;
  /** Every Nth message is answered HTTP 500 (a rules file's failEvery unless given). */
  failEvery?: number;
  /** How a repeat is answered (a rules file's repeats unless given); default consistent. */
  repeats?: RepeatBehaviour;
  /** What is remembered for GET /exchanges and repeats (tests make it small); HISTORY_BOUND by default. */
  historyBound?: HistoryBound;
  onExchange(exchange: Exchange): void;
}

/** What GET /exchanges?stan=S&rrn=R answers: what the listener received with that STAN and RRN, oldest first. */
export interface Received {
  stan: string;
  rrn: string;
  /** Messages received (repeats and duplicate deliveries included). */
  deliveries: number;
  /** Of those, repeats of an earlier message (same STAN, RRN and message class). */
  repeats: number;
  /** valid when every signature checked out, invalid when any did not, unchecked without a secret. */
  signature: Exchange['signature'];
  messages: Array<Omit<LoggedExchange, 'stan' | 'rrn'>>;
}

export interface Exchange {
  type: 'exchange';
  at: string;
  /** HTTP status the listener answered with. */
  status: number;
  signature: 'valid' | 'invalid' | 'unchecked';
  /** Why the signature was refused, or why the message was not answered. */
  error?: string;
  mti?: string;
  stan?: string;
  rrn?: string;
  pan?: string;
  amount?: string;
  processingCode?: string;
  channel?: string;
  responseCode?: string;
  responseMessage?: string;
  /** Which rule decided ("rule 2 (name)", "default", "--respond", "forward", "--fail-every", "repeat"). */
  decidedBy?: string;
  /**
   * A repeat of an earlier message (same STAN, RRN and message, or its repeat): whether it was
   * answered as that one was (with --forward-to: whether your handler answered it so).
   */
  repeat?: RepeatBehaviour;
  /** Partial approval (10): the amount approved, as field 4 of the answer says. */
  approvedAmount?: string;
  delayMs?: number;
  forwardedTo?: string;
  /** HTTP status of the handler's reply, when it replied. */
  forwardStatus?: number;
  /** What the handler did: answered validly, timed out, could not be reached, error status, invalid reply. */
  forwardOutcome?: ForwardOutcome;
  durationMs: number;
  /** The messages with the PAN masked and card secrets redacted. */
  request?: SwitchMessage;
  response?: SwitchMessage;
}

export interface RunningListener {
  url: string;
  close(): Promise<void>;
}

export function responseFor(request: SwitchMessage, code: string): SwitchMessage {
  return buildResponse({ '0': '0100', ...request }, code, String(randomInt(1_000_000)).padStart(6, '0'));
}

/** An answer a repeat was not given before: a decline for an approval, an approval for anything else. */
function otherCode(code: string): string {
  return isApproved(code) ? '05' : '00';
}

/** What a running listener keeps across messages. */
interface ListenerState {
  options: ListenerOptions;
  failEvery: number | undefined;
  repeats: RepeatBehaviour;
  history: ExchangeHistory;
  /** Messages the listener answered itself (not relayed), counted for --fail-every. */
  messagesSeen: number;
  /** Delayed answers' timers, cleared on close. */
  timers: Set<NodeJS.Timeout>;
  /** --forward-to's handler, its address resolved and checked once: every relay connects there and nowhere else. */
  forward: Awaited<ReturnType<typeof connectToLoopback>> | undefined;
}

/** Logs one exchange: the history line and the caller's onExchange. */
type Done = (exchange: Omit<Exchange, 'type' | 'at' | 'durationMs'>) => void;

/** A POSTed switch message that passed the checks, on its way to an answer. */
interface Delivery {
  req: IncomingMessage;
  res: ServerResponse;
  body: string;
  message: SwitchMessage;
  signature: Exchange['signature'];
  /** This message's place in the history. */
  current: Entry;
  /** The earlier message this one repeats, whose answer a repeat waits for. */
  first: Entry | undefined;
  done: Done;
}

export async function startListener(options: ListenerOptions): Promise<RunningListener> {
  const state: ListenerState = {
    options,
    failEvery: options.failEvery ?? options.rules?.failEvery,
    repeats: options.repeats ?? options.rules?.repeats ?? 'consistent',
    history: new ExchangeHistory(options.historyBound),
    messagesSeen: 0,
    timers: new Set(),
    forward: options.forwardTo ? await connectToLoopback(options.forwardTo) : undefined,
  };
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    void handle(state, req, res).catch((error) => {
      if (!res.headersSent) reply(res, 500, { error: `listener error: ${(error as Error).message}` });
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () => new Promise<void>((resolve) => {
      for (const timer of state.timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }).then(() => state.forward?.dispatcher.destroy()),
  };
}

/** One request: GET /exchanges, a status GET, or a POSTed message checked (size, signature, JSON) and answered. */
async function handle(state: ListenerState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { options, history } = state;
  const started = performance.now();
  const at = new Date().toISOString();
  const url = new URL(req.url ?? '/', 'http://listener');
  // Under the webhook's own path too: <webhook URL>/exchanges.
  if (req.method === 'GET' && url.pathname.endsWith('/exchanges')) return reply(res, 200, receivedWith(history, url.searchParams));
  if (req.method === 'GET' || req.method === 'HEAD') {
    return reply(res, 200, { status: 'listening', respond: options.respond, rules: options.rules?.rules.length ?? 0, forwardTo: options.forwardTo ?? null });
  }
  if (req.method !== 'POST') return reply(res, 405, { error: 'POST a switch message (JSON)' });
  const base = { type: 'exchange' as const, at, durationMs: 0 };
  let entry: Entry | undefined;
  const done: Done = (exchange) => {
    const { stan, rrn, mti, status, signature, responseCode, decidedBy, repeat } = exchange;
    history.finish(entry, { stan, rrn, mti, status, signature, responseCode, decidedBy, repeat });
    options.onExchange({ ...base, ...exchange, durationMs: Math.round(performance.now() - started) });
  };
  const body = await readBody(req);
  if (body === undefined) {
    const error = `the body is over the ${MAX_BODY_BYTES}-byte limit of a switch message`;
    res.setHeader('connection', 'close');
    reply(res, 413, { error });
    return done({ status: 413, signature: 'unchecked', error });
  }

  let signature: Exchange['signature'] = 'unchecked';
  if (options.secret !== undefined) {
    const verdict = verifyRequest(options.scheme ?? 'cardctl', req.headers, options.secret, body);
    if (!verdict.ok) {
      reply(res, 401, { error: `invalid signature: ${verdict.reason}` });
      return done({ status: 401, signature: 'invalid', error: verdict.reason, ...summary(tryParse(body)) });
    }
    signature = 'valid';
  }
  const message = tryParse(body);
  if (!message) {
    reply(res, 400, { error: 'the body is not a JSON object of switch message fields' });
    return done({ status: 400, signature, error: 'body is not a switch message' });
  }

  const arrived = history.arrive(repeatKey(message));
  entry = arrived.entry;
  const delivery: Delivery = { req, res, body, message, signature, current: entry, first: arrived.first, done };
  try {
    await (options.forwardTo ? answerForwarded(state, options.forwardTo, delivery) : answerItself(state, delivery));
  } finally {
    entry.answered(undefined);
  }
}

/** --forward-to: the operator's handler answers; its reply is relayed only when the sandbox would take it. */
async function answerForwarded(state: ListenerState, forwardTo: string, { req, res, body, message, signature, current, first, done }: Delivery): Promise<void> {
  const relayed = await relay(forwardTo, state.forward!.dispatcher, req, body, message, state.options.forwardTimeoutMs ?? WEBHOOK_TIMEOUT_MS - 500);
  current.answered(relayed.outcome === 'answered' ? relayed.reply : undefined);
  const earlier = first ? await first.answer : undefined;
  const common = {
    signature, ...summary(message), forwardedTo: forwardTo, forwardStatus: relayed.handlerStatus, forwardOutcome: relayed.outcome,
    decidedBy: 'forward', request: redactMessage(message),
    ...(first ? { repeat: earlier && relayed.outcome === 'answered' && !sameAnswer(earlier, relayed.reply) ? 'inconsistent' as const : 'consistent' as const } : {}),
  };
  if (res.destroyed || res.writableEnded) {
    return done({ ...common, status: 0, error: `the caller hung up before the handler's answer (${relayed.error ?? 'answered'})` });
  }
  if (relayed.outcome !== 'answered') {
    const status = relayed.outcome === 'timeout' ? 504 : 502;
    reply(res, status, { error: relayed.error });
    return done({ ...common, status, error: relayed.error });
  }
  res.writeHead(relayed.handlerStatus!, { 'content-type': relayed.contentType ?? 'application/json' }).end(relayed.text);
  return done({
    ...common, status: relayed.handlerStatus!, responseCode: relayed.reply['39'], responseMessage: responseMessage(relayed.reply['39']!),
    response: redactMessage(relayed.reply),
  });
}

/** The listener answers itself: --fail-every, then a repeat as the first time (or not), then the rules or --respond. */
async function answerItself(state: ListenerState, { res, message, signature, current, first, done }: Delivery): Promise<void> {
  const { options, failEvery, repeats } = state;
  state.messagesSeen += 1;
  if (failEvery !== undefined && state.messagesSeen % failEvery === 0) {
    reply(res, 500, { error: `failing every ${failEvery}th message (webhook listen --fail-every)` });
    return done({ status: 500, signature, ...summary(message), decidedBy: '--fail-every', error: `failed on purpose: message ${state.messagesSeen}, every ${failEvery}th fails`, request: redactMessage(message) });
  }
  // A repeat gets the first answer (once given) again, around this message's own fields (its
  // field 7 may be new), in its ISO response MTI (0101 → 0110): or another, to test the network.
  const earlier = first ? await first.answer : undefined;
  if (earlier?.['39']) {
    const code = repeats === 'consistent' ? earlier['39'] : otherCode(earlier['39']);
    const response = responseFor(message, code);
    if (repeats === 'consistent') {
      if (earlier['38']) response['38'] = earlier['38'];
      if (earlier['39'] === PARTIAL_APPROVAL_CODE && earlier['4']) response['4'] = earlier['4'];
    }
    current.answered(response);
    reply(res, 200, response);
    return done({
      status: 200, signature, ...summary(message), responseCode: code, responseMessage: responseMessage(code), decidedBy: 'repeat', repeat: repeats,
      request: redactMessage(message), response: redactMessage(response),
    });
  }
  const decision = decide(options.rules, message, options.respond, options.defaults);
  if (decision.delay > 0) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => { state.timers.delete(timer); resolve(); }, decision.delay);
      state.timers.add(timer);
    });
    if (res.destroyed || res.writableEnded) {
      return done({ status: 0, signature, ...summary(message), decidedBy: decision.reason, delayMs: decision.delay, error: 'the caller hung up before the delayed answer', request: redactMessage(message) });
    }
  }
  const response = responseFor(message, decision.code);
  if (decision.approvedAmount !== undefined) response['4'] = approvedField4(decision.approvedAmount, message['49']);
  current.answered(response);
  reply(res, 200, response);
  return done({
    status: 200, signature, ...summary(message), responseCode: decision.code, responseMessage: responseMessage(decision.code),
    decidedBy: decision.reason, ...(first ? { repeat: 'consistent' as const } : {}), delayMs: decision.delay || undefined, request: redactMessage(message), response: redactMessage(response),
    ...(decision.approvedAmount !== undefined ? { approvedAmount: formatAmount(response['4']!, message['49'] ?? '566') } : {}),
  });
}

/** GET /exchanges?stan=S&rrn=R: what the listener received with that STAN and RRN. */
function receivedWith(history: ExchangeHistory, query: URLSearchParams): Received {
  const stan = query.get('stan') ?? '';
  const rrn = query.get('rrn') ?? '';
  const messages = history.logsOf(stan, rrn).map(({ stan: _s, rrn: _r, ...rest }) => rest);
  const signatures = new Set(messages.map((x) => x.signature));
  const signature = signatures.has('invalid') ? 'invalid' : signatures.has('unchecked') || messages.length === 0 ? 'unchecked' : 'valid';
  return { stan, rrn, deliveries: messages.length, repeats: messages.filter((x) => x.repeat !== undefined).length, signature, messages };
}

/** Field 4 of a partial approval: the approved amount (major units) in minor units of the currency, 12 digits. */
function approvedField4(major: number, currency = '566'): string {
  return parseAmount(String(major), currencyInfo(currency)?.digits ?? 2).toString().padStart(12, '0');
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** The body as text, or undefined as soon as it is known to pass MAX_BODY_BYTES (by Content-Length, or while read). */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  if (Number(req.headers['content-length']) > MAX_BODY_BYTES) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
      else {
        chunks.length = 0;
        resolve(undefined);
      }
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function tryParse(text: string): SwitchMessage | undefined {
  try {
    const value = JSON.parse(text);
    if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
    const out: SwitchMessage = {};
    for (const [key, field] of Object.entries(value)) if (typeof field === 'string' || typeof field === 'number') out[key] = String(field);
    return out;
  } catch {
    return undefined;
  }
}

function summary(message: SwitchMessage | undefined): Partial<Exchange> {
  if (!message) return {};
  return {
    mti: message['0'],
    stan: message['11'],
    rrn: message['37'],
    pan: message['2'] ? (/^\d+$/.test(message['2']) ? maskPan(message['2']) : message['2']) : undefined,
    amount: isField4(message['4']) ? formatAmount(message['4'], message['49'] ?? '566') : undefined,
    processingCode: message['3'],
    channel: message['25'] !== undefined ? channelOfConditionCode(message['25']) : undefined,
  };
}
