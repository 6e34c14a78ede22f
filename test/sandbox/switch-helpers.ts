// Helpers of the switch tests: simulate calls, programs with chosen limits, a webhook server
// (node:http) whose answer each test decides, and the forward-mode set-up of a test file.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { call, createCard, startTestSandbox, type DataEnvelope, type Sandbox } from './helpers.js';
import type { CardProgram, SimulateEnvelope } from '../../src/api/schemas.js';

export async function simulate(sb: Sandbox, body: Record<string, unknown>, options: { token?: string; switchSegment?: string } = {}) {
  return call<SimulateEnvelope>(sb, 'POST', `/institutions/${options.switchSegment ?? 'switch'}/simulate`, { token: options.token ?? sb.token, body });
}

export const auth = (cardId: string, extra: Record<string, unknown> = {}) => ({ intent: 'authorization', processingFlow: 'purchase', amount: 100, cardId, ...extra });
export const financial = (cardId: string, extra: Record<string, unknown> = {}) => ({ intent: 'financial', processingFlow: 'purchase', amount: 100, cardId, ...extra });

type ChannelChange = { enabled: boolean; dailyLimit: { count: number; amount: number } };

/** A new card program of the sandbox's institution, with the given channel settings and webhook. */
export async function createProgram(sb: Sandbox, changes: { channels?: Partial<Record<'pos' | 'atm' | 'web', ChannelChange>>; webHookConfig?: Record<string, string> } = {}) {
  const response = await call<DataEnvelope<CardProgram>>(sb, 'POST', '/sandbox/card-programs', { token: sb.token, body: { name: `Program ${Math.random().toString(36).slice(2, 8)}`, ...changes } });
  if (response.status !== 201) throw new Error(`program: ${response.text}`);
  return response.body.data as { id: string; channels: Record<string, ChannelChange>; webHookConfig: Record<string, string> };
}

export async function updateProgram(sb: Sandbox, id: string, changes: Record<string, unknown>) {
  const response = await call<DataEnvelope<CardProgram>>(sb, 'PUT', `/sandbox/card-programs/${id}`, { token: sb.token, body: changes });
  if (response.status !== 200) throw new Error(`program update: ${response.text}`);
  return response.body.data;
}

export async function cardOf(sb: Sandbox, programId?: string, overrides: Record<string, unknown> = {}) {
  return createCard(sb, { ...(programId ? { cardProgram: programId } : {}), ...overrides });
}

/** The clear PAN of a card, read from the store (responses only show it masked). */
export function clearPan(sb: Sandbox, cardId: string): string {
  return sb.deps.store.cards.get(sb.institutionId, cardId)!.pan;
}

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  message: Record<string, string>;
}

export type Responder = (received: Received, res: ServerResponse) => void | Promise<void>;

export interface TestWebhook {
  url: string;
  received: Received[];
  respond(responder: Responder): void;
  close(): Promise<void>;
}

/** Replies with MTI + 10, the request echoed and 39 = code. */
export function echo(code: string, extra: Record<string, string> = {}): Responder {
  return (received, res) => {
    const reply: Record<string, string> = { ...received.message, '0': `${received.message['0']!.slice(0, 2)}${Number(received.message['0']![2]) + 1}${received.message['0']![3]}`, '39': code, ...extra };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
  };
}

export async function startWebhook(): Promise<TestWebhook> {
  const received: Received[] = [];
  let responder: Responder = echo('00');
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      let message: Record<string, string> = {};
      try { message = JSON.parse(body); } catch { /* recorded as is */ }
      const entry = { headers: req.headers, body, message };
      received.push(entry);
      void Promise.resolve(responder(entry, res)).catch(() => res.destroy());
    });
  });
  server.on('connection', (socket) => { sockets.add(socket); socket.on('close', () => sockets.delete(socket)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhook`,
    received,
    respond: (next) => { responder = next; },
    close: () => new Promise<void>((resolve) => { for (const socket of sockets) socket.destroy(); server.close(() => resolve()); }),
  };
}

export interface ForwardSandbox {
  sb: Sandbox;
  hook: TestWebhook;
  /** A card program of the sandbox's institution whose webhook is `hook`. */
  programId: string;
}

/**
 * The set-up of a forward-mode test file: an in-process sandbox, a test webhook, and a card
 * program forwarding to it (`webHookConfig` adds the secret, the header …); before each test the
 * webhook forgets what it received and answers with echo('00') again. Call it at the top of the
 * file; the fields are set once its beforeAll has run, so read them inside hooks and tests.
 */
/** `sandbox`: e.g. a long adviceRetryFirstMs, for tests that deliver advices by hand and count the attempts. */
export function useForwardSandbox(webHookConfig: Record<string, string> = {}, sandbox: Parameters<typeof startTestSandbox>[0] = {}): ForwardSandbox {
  const forward = {} as ForwardSandbox;
  beforeAll(async () => {
    forward.sb = await startTestSandbox(sandbox);
    forward.hook = await startWebhook();
    forward.programId = (await createProgram(forward.sb, { webHookConfig: { url: forward.hook.url, ...webHookConfig } })).id;
  });
  afterAll(async () => {
    await forward.hook?.close();
    await forward.sb?.close();
  });
  beforeEach(() => {
    forward.hook.received.length = 0;
    forward.hook.respond(echo('00'));
  });
  return forward;
}
