// What every route module and service gets: the store, the PIN key, the clock and the server's settings.
import type { KeyObject } from 'node:crypto';
import type { Dialect } from '../api/dialect.js';
import type { SandboxEvents } from './events.js';
import type { ExchangeLog } from './exchange-log.js';
import type { Store } from './store/index.js';
import type { WebhookFaultController } from './switch/webhook-faults.js';

export interface SandboxSettings {
  /** Lifetime of tokens issued by POST /oauth/token, seconds. */
  tokenTtlSeconds: number;
  /** /sandbox/* answers callers that are not on loopback (server bound to a non-loopback host: published). */
  allowRemoteSandboxHelpers: boolean;
  /** The address the server is bound to (`sandbox serve --host`): a Host header may name it (ingress.ts). */
  bindHost: string;
  /** The first wait before an unacknowledged advice is delivered again, ms (it doubles up to 30 s). */
  adviceRetryFirstMs: number;
  /** The first STAN of a day with no messages yet (1 unless a run must not reuse another run's STANs). */
  firstStan: number;
}

export interface SandboxPinKey {
  publicKeyPem: string;
  privateKey: KeyObject;
  fingerprint: string;
}

/**
 * The dependencies of the sandbox's route plugins and services. A route plugin is a
 * `FastifyPluginAsyncTypebox<SandboxDeps>`, registered with `app.register(plugin, deps)`; it
 * builds the services it calls (services/<resource>.ts) from them.
 */
export interface SandboxDeps {
  store: Store;
  pinKey: SandboxPinKey;
  clock: { now(): Date };
  settings: SandboxSettings;
  /** The deployment dialect the sandbox speaks (DEFAULT_DIALECT unless --dialect). */
  dialect: Dialect;
  /** The base URL the server listens on (known once it listens), e.g. http://127.0.0.1:4010. */
  baseUrl(): string;
  /** Faults on the webhook path (none when absent; PUT /sandbox/webhook-faults changes them). */
  webhookFaults?: WebhookFaultController;
  /** The seed it was started with (shown by GET /sandbox/webhook-faults). */
  webhookFaultsSeed?: number;
  /** Transactions and webhook exchanges as they happen (the live inspector listens). */
  events: SandboxEvents;
  /** Every webhook call of the switch, as recorded (in memory, bounded; GET /sandbox/webhook-exchanges). */
  exchanges: ExchangeLog;
}
