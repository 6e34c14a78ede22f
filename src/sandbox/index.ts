// The sandbox's programmatic entry: open the store, seed it, start the server. Used by
// `cardctl sandbox serve`, `cardctl demo`, and the tests (in-process on port 0).
import { createPrivateKey } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { resolveDialect, type DialectOverrides } from '../api/dialect.js';
import { createSandboxEvents } from './events.js';
import { DEFAULT_EXCHANGE_BOUNDS, ExchangeLog } from './exchange-log.js';
import type { SandboxDeps } from './deps.js';
import { unservableDialect } from './dialect.js';
import { isLoopbackHost } from '../core/loopback.js';
import { generatePinKeyPair, type PinKeyPair } from './pin.js';
import { emptyFaultSpec, parseFaultSpec, type FaultController, type FaultSpec } from './faults.js';
import { buildServer, type RegisteredRoute } from './server.js';
import { createInspectorAccess } from './services/inspector.js';
import { emptyWebhookFaults, parseWebhookFaults, webhookFaultController, type WebhookFaultSpec } from './switch/webhook-faults.js';
import { openStore, type Store } from './store/index.js';
import { ADVICE_RETRY_FIRST_MS } from './switch/runtime.js';
import { seedSandbox } from './tenancy.js';
import type { SignatureScheme } from '../webhook-protocol/signature.js';

export interface SandboxOptions {
  /** 0 = any free port (default). */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** SQLite file; ignored with `memory`. */
  dbFile?: string;
  /** Keep everything in memory (the default when no dbFile is given). */
  memory?: boolean;
  /** Webhook URL of the seeded card program. */
  webhookUrl?: string;
  /** Signature scheme of the seeded card program's webhook (its webHookConfig.type). */
  webhookScheme?: SignatureScheme;
  /** Lifetime of tokens from POST /oauth/token (default 3600). */
  tokenTtlSeconds?: number;
  /** The first wait before an unacknowledged advice is delivered again, ms (default 1000; tests that deliver by hand set it long). */
  adviceRetryFirstMs?: number;
  /** The first STAN of each day (default 1): `webhook certify` starts elsewhere each run. */
  firstStan?: number;
  /** Request log, one line per request. */
  log?: (line: string) => void;
  /** Fault injection: a spec such as `rate=0.1,codes=500|503` or a parsed one (see faults.ts). */
  faults?: string | FaultSpec;
  /** Seed of the fault injector (default 1). */
  faultsSeed?: number;
  /** How long commit-then-timeout holds a response, seconds (default 35). */
  faultsHoldSeconds?: number;
  /** Faults on the webhook path: a spec such as `deadline=2s,reply-lost=0.1` or a parsed one (see switch/webhook-faults.ts). */
  webhookFaults?: string | WebhookFaultSpec;
  /** Seed of the webhook fault injector (default 1). */
  webhookFaultsSeed?: number;
  /** Most webhook exchanges kept in memory (default 10000); the oldest go first. */
  exchangesMax?: number;
  /** Most bytes of webhook exchanges kept in memory (default 64 MiB); the oldest go first. */
  exchangesMaxBytes?: number;
  /** The deployment dialect to speak, as a dialect file holds it (src/api/dialect.ts); the default when absent. */
  dialect?: DialectOverrides;
}

export interface RunningSandbox {
  baseUrl: string;
  institutionId: string;
  userId: string;
  token: string;
  apiKey: string;
  cardProgramId: string;
  pinKeyFingerprint: string;
  pinPublicKey: string;
  /** The live inspector's page, its token in the query: the only place the token is shown. */
  inspectorUrl: string;
  /** For in-process callers (tests, the switch): the store and the rest of the route deps. */
  deps: SandboxDeps;
  server: FastifyInstance;
  /** Every route the server registered (method, fastify URL). */
  routes: readonly RegisteredRoute[];
  /** The fault injector (set() changes the spec, like PUT /sandbox/faults). */
  faults: FaultController;
  /** How many route handlers are running now (tests wait on it). */
  runningHandlers(): number;
  close(): Promise<void>;
}

const PIN_KEY = 'pinKey';

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = options.host ?? '127.0.0.1';
  const dialect = resolveDialect(options.dialect);
  const unservable = unservableDialect(dialect);
  if (unservable) throw new Error(`the sandbox cannot speak this dialect: ${unservable}`);
  const store = openStore({ file: options.dbFile, memory: options.memory ?? !options.dbFile });
  try {
    const pinKey = loadOrCreatePinKey(store);
    const seed = seedSandbox(store, new Date(), { webhookUrl: options.webhookUrl, webhookScheme: options.webhookScheme });
    let baseUrl = '';
    const events = createSandboxEvents();
    const deps: SandboxDeps = {
      store,
      pinKey: { publicKeyPem: pinKey.publicKeyPem, fingerprint: pinKey.fingerprint, privateKey: createPrivateKey(pinKey.privateKeyPem) },
      clock: { now: () => new Date() },
      settings: {
        tokenTtlSeconds: options.tokenTtlSeconds ?? 3600,
        allowRemoteSandboxHelpers: !isLoopbackHost(host),
        bindHost: host,
        adviceRetryFirstMs: options.adviceRetryFirstMs ?? ADVICE_RETRY_FIRST_MS,
        firstStan: options.firstStan ?? 1,
      },
      dialect,
      baseUrl: () => baseUrl,
      // `--webhook-faults` are the seeded institution's: the one whose credentials serve prints.
      webhookFaults: webhookFaultController(
        { institutionId: seed.institutionId },
        typeof options.webhookFaults === 'string' ? parseWebhookFaults(options.webhookFaults) : options.webhookFaults ?? emptyWebhookFaults(),
        options.webhookFaultsSeed ?? 1,
      ),
      webhookFaultsSeed: options.webhookFaultsSeed ?? 1,
      events,
      exchanges: new ExchangeLog({
        count: options.exchangesMax ?? DEFAULT_EXCHANGE_BOUNDS.count,
        bytes: options.exchangesMaxBytes ?? DEFAULT_EXCHANGE_BOUNDS.bytes,
      }, events),
    };
    const faultSpec = typeof options.faults === 'string'
      ? parseFaultSpec(options.faults, options.faultsHoldSeconds)
      : options.faults ?? emptyFaultSpec(options.faultsHoldSeconds);
    // A new inspector token every start: the link printed at start is the only way in.
    const inspectorAccess = createInspectorAccess();
    const { app: server, routes, whenIdle, faults, runningHandlers } = await buildServer(deps, {
      log: options.log, faults: faultSpec, faultsSeed: options.faultsSeed,
      inspector: { access: inspectorAccess, subject: { institutionId: seed.institutionId } },
    });
    await server.listen({ port: options.port ?? 0, host });
    const address = server.server.address();
    const port = typeof address === 'object' && address ? address.port : options.port ?? 0;
    baseUrl = `http://${urlHost(host)}:${port}`;
    let closed = false;
    return {
      baseUrl,
      ...seed,
      pinKeyFingerprint: pinKey.fingerprint,
      pinPublicKey: pinKey.publicKeyPem,
      inspectorUrl: `${baseUrl}/sandbox/inspector?token=${inspectorAccess.token}`,
      deps,
      server,
      routes,
      faults,
      runningHandlers,
      async close() {
        if (closed) return;
        closed = true;
        // A request that never finishes must not keep the process up: cut the rest after 5 s.
        const cut = setTimeout(() => server.server.closeAllConnections(), 5_000);
        await server.close();
        clearTimeout(cut);
        await Promise.race([whenIdle(), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
        store.close();
      },
    };
  } catch (error) {
    store.close();
    throw error;
  }
}

/** The PIN key pair is made once per database and kept in it (clients cache the public key). */
function loadOrCreatePinKey(store: Store): PinKeyPair {
  return store.transaction(() => {
    const existing = store.meta.get<PinKeyPair>(PIN_KEY);
    if (existing) return existing;
    const created = generatePinKeyPair();
    store.meta.set(PIN_KEY, created);
    return created;
  });
}

/** A host as it goes in a URL: IPv6 in brackets; the wildcard addresses as loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export type { SandboxDeps } from './deps.js';
