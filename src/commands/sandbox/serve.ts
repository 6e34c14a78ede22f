import { join } from 'node:path';
import { dataDir } from '../../config/paths.js';
import { saveSandboxProfile } from '../../config/sandbox-profile.js';
import { defineCommand } from '../../contract/command.js';
import { defineFlags, type FlagValues } from '../../core/flags.js';
import type { Context } from '../../contract/context.js';
import { UsageError } from '../../core/errors.js';
import { maskSecret } from '../../core/redact.js';
import type { DialectOverrides } from '../../api/dialect.js';
import type { FaultSpec } from '../../sandbox/faults.js';
import type { WebhookFaultSpec } from '../../sandbox/switch/webhook-faults.js';
import { SIGNATURE_SCHEMES, type SignatureScheme } from '../../webhook-protocol/signature.js';

type ServeOptions = FlagValues<typeof FLAGS>;

interface ParsedServeOptions {
  port: number;
  host: string;
  dbFile?: string;
  /** Was dbFile given with --db (else the default in the data directory)? For messages. */
  dbFromFlag: boolean;
  memory: boolean;
  webhookUrl?: string;
  webhookScheme?: SignatureScheme;
  tokenTtlSeconds: number;
  log: boolean;
  faults?: FaultSpec;
  /** The spec as given, for the banner. */
  faultsText?: string;
  faultsSeed?: number;
  webhookFaults?: WebhookFaultSpec;
  /** The spec as given, for the banner. */
  webhookFaultsText?: string;
  webhookFaultsSeed?: number;
  /** The dialect file's settings (--dialect), and its path for the banner. */
  dialect?: DialectOverrides;
  dialectFile?: string;
  exchangesMax?: number;
  exchangesMaxBytes?: number;
}

const FLAGS = defineFlags({
  port: { type: 'string', value: 'n', default: '4010', description: 'port (0 = any free port)' },
  host: { type: 'string', value: 'host', default: '127.0.0.1', description: 'address to bind; anything but loopback publishes the sandbox and its /sandbox helpers (says so)' },
  db: { type: 'string', value: 'file', complete: 'file', description: 'SQLite database file (default: in the user data directory)' },
  memory: { type: 'boolean', description: 'keep everything in memory' },
  webhookUrl: { type: 'string', value: 'url', description: "webhook URL of the seeded card program" },
  webhookScheme: { type: 'string', value: 'scheme', choices: SIGNATURE_SCHEMES, description: "signature scheme of the seeded card program's webhook (its webHookConfig.type; standard-webhooks gives it a whsec_ secret)" },
  faults: { type: 'string', value: 'spec', description: 'inject faults, e.g. rate=0.1,codes=500|503,latency=0-800ms' },
  faultsSeed: { type: 'string', value: 'n', description: 'seed for the fault injector (replayable runs)' },
  webhookFaults: { type: 'string', value: 'spec', description: 'faults between the switch and the seeded institution\'s webhook (delay, deadline, duplicate, reset, reply-lost, garbage, signature), e.g. delay=100-300ms,reset=0.05' },
  webhookFaultsSeed: { type: 'string', value: 'n', description: 'seed for the webhook fault injector (replayable runs)' },
  faultsHold: { type: 'string', value: 'seconds', description: 'how long commit-then-timeout holds a response (default 35)' },
  tokenTtl: { type: 'string', value: 'seconds', description: 'lifetime of OAuth access tokens (default 3600)' },
  quietLog: { type: 'boolean', description: 'no request log on stderr' },
  dialect: { type: 'string', value: 'file', complete: 'file', description: 'speak the deployment dialect of this JSON or YAML file (list parameters, paging, errors)' },
  exchangesMax: { type: 'string', value: 'n', description: 'webhook exchanges kept in memory, the oldest dropped first (default 10000)' },
  exchangesMaxBytes: { type: 'string', value: 'size', description: 'bytes of webhook exchanges kept in memory, 1MiB to 16GiB (default 64MiB)' },
});

export default defineCommand({
  name: 'serve',
  mcp: 'never',
  summary: 'run a local, stateful implementation of the whole API',
  description: `Runs a local, stateful implementation of the whole API on SQLite: cards, PINs, transactions,
OAuth applications, users, imports. The first start of a database seeds an institution with a
bearer token, an API key, a card program and a PIN key; later starts on the same database reuse them.

With --json the first line on stdout is one JSON object with baseUrl, institutionId, token,
apiKey, cardProgramId, pinKeyFingerprint and inspectorUrl.

The live inspector: open the inspector link it prints (a new token every start; loopback only) to
watch the seeded institution's transactions, their lifecycles and every webhook exchange (request
and reply side by side) as they happen, and replay an exchange with one click.

With --profile NAME the credentials are stored as that profile, so the next cardctl command just works.
With --dialect FILE (JSON or YAML) the sandbox speaks another deployment dialect: the list query
parameters go by the file's names (others are ignored), lists page and errors are shaped as it
says, and a page size above its maxPageSize is a 400 (\`cardctl help deployment\`).
The request log (method, path, status, time; never secrets or bodies) goes to stderr.

Who may call it: a request's Host must name the sandbox (localhost, 127.0.0.1, [::1] or the --host
address, with its port), a web page of another origin is refused, and the /sandbox helpers answer
this machine only and take a JSON body or a token. --host with anything but loopback publishes it:
other machines reach the API and the /sandbox helpers (new institutions and their tokens, the
switch clock, faults, advice delivery, replays to any URL), by that address (bound to 0.0.0.0 or
::, by any address of this machine) on any port; it warns so. The inspector stays loopback only.`,
  flags: FLAGS,
  examples: [
    'cardctl sandbox serve --profile sandbox',
    'cardctl sandbox serve --port 0 --memory --json',
    'cardctl sandbox serve --faults rate=0.1,codes=500|502|503,latency=0-800ms,reset=0.02,429=0.05 --faults-seed 42',
    'cardctl sandbox serve --webhook-url http://127.0.0.1:4020/webhook --webhook-scheme standard-webhooks',
    'cardctl sandbox serve --webhook-url http://127.0.0.1:4020/webhook --webhook-faults deadline=2s,reply-lost=0.1 --webhook-faults-seed 7',
    'cardctl sandbox serve --profile legacy --dialect examples/dialect.yaml',
  ],
  parse: ({ opts }) => parseServeOptions(opts),
  async run(ctx, parsed) {
    const options = await withContext(ctx, parsed);
    const { startSandbox } = await import('../../sandbox/index.js');
    const { isLoopbackHost } = await import('../../core/loopback.js');
    if (!isLoopbackHost(options.host)) ctx.log.warn(publishedWarning(options.host));
    const { checkDbFile, explainDbOpenError } = await import('./db-file.js');
    if (options.dbFile) checkDbFile(options.dbFile, options.dbFromFlag);
    let sandbox;
    try {
      sandbox = await startSandbox({
        port: options.port,
        host: options.host,
        dbFile: options.dbFile,
        memory: options.memory,
        webhookUrl: options.webhookUrl,
        webhookScheme: options.webhookScheme,
        tokenTtlSeconds: options.tokenTtlSeconds,
        log: options.log ? (line) => ctx.io.err(`${line}\n`) : undefined,
        faults: options.faults,
        faultsSeed: options.faultsSeed,
        webhookFaults: options.webhookFaults,
        webhookFaultsSeed: options.webhookFaultsSeed,
        dialect: options.dialect,
        exchangesMax: options.exchangesMax,
        exchangesMaxBytes: options.exchangesMaxBytes,
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'EADDRINUSE') throw new UsageError(`port ${options.port} is already in use`, { hint: 'pass --port 0 for any free port' });
      if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`cannot bind to host ${options.host}`);
      throw options.dbFile ? explainDbOpenError(error, options.dbFile, options.dbFromFlag) : error;
    }

    // Listen for the stop signals before announcing anything: a script may send SIGTERM as
    // soon as it has read the first line.
    const stop = stopSignal(ctx.signal);
    try {
      const profileName = ctx.globals.profile;
      // In memory, the profile outlives its sandbox: marked so, to say so when it is used later.
      if (profileName) await saveSandboxProfile(ctx.config, profileName, sandbox, { ephemeral: options.memory });

      if (ctx.globals.json || ctx.globals.output === 'json') {
        ctx.io.out(`${JSON.stringify(announcement(sandbox))}\n`);
      } else {
        printBanner(ctx, sandbox, options, profileName);
      }

      await stop.received;
    } finally {
      await sandbox.close();
      stop.dispose();
    }
    if (!ctx.globals.json && ctx.globals.output !== 'json') ctx.io.err('sandbox stopped\n');
  },
});

/** The flags checked and the --dialect file read (stdin, and the default database's place, by run()). */
async function parseServeOptions(opts: ServeOptions): Promise<ParsedServeOptions> {
  let faults: FaultSpec | undefined;
  let faultsSeed: number | undefined;
  if (opts.faultsSeed !== undefined) faultsSeed = parseSeed('--faults-seed', opts.faultsSeed);
  if (opts.faults !== undefined || opts.faultsHold !== undefined) {
    const { faultSpecFrom, parseFaultSpec, FaultSpecError, DEFAULT_HOLD_SECONDS } = await import('../../sandbox/faults.js');
    let hold = DEFAULT_HOLD_SECONDS;
    if (opts.faultsHold !== undefined) {
      // The spec's own `hold` rule: seconds, or a duration such as 500ms.
      try {
        hold = faultSpecFrom({ hold: opts.faultsHold }).holdSeconds;
      } catch (error) {
        if (error instanceof FaultSpecError) throw new UsageError(`invalid --faults-hold: ${error.message}`);
        throw error;
      }
    }
    try {
      faults = parseFaultSpec(opts.faults ?? '', hold);
    } catch (error) {
      if (error instanceof FaultSpecError) {
        throw new UsageError(`invalid --faults: ${error.message}`, { hint: 'e.g. --faults rate=0.1,codes=500|502|503,latency=0-800ms,reset=0.02,slow-body=0.01,429=0.05,commit-then-timeout=0.05' });
      }
      throw error;
    }
  }
  const webhookFaultsSeed = opts.webhookFaultsSeed === undefined ? undefined : parseSeed('--webhook-faults-seed', opts.webhookFaultsSeed);
  let webhookFaults: WebhookFaultSpec | undefined;
  if (opts.webhookFaults !== undefined) {
    const { parseWebhookFaults, WebhookFaultSpecError } = await import('../../sandbox/switch/webhook-faults.js');
    try {
      webhookFaults = parseWebhookFaults(opts.webhookFaults);
    } catch (error) {
      if (error instanceof WebhookFaultSpecError) {
        throw new UsageError(`invalid --webhook-faults: ${error.message}`, { hint: 'e.g. --webhook-faults delay=100-300ms,deadline=2s,duplicate=0.1,reset=0.05,reply-lost=0.05,garbage=0.01' });
      }
      throw error;
    }
  }
  if (!/^\d+$/.test(opts.port) || Number(opts.port) > 65535) {
    throw new UsageError(`invalid --port "${opts.port}": give a number from 0 to 65535 (0 = any free port)`);
  }
  if (opts.memory && opts.db !== undefined) throw new UsageError('--db and --memory cannot be used together');
  if (opts.db !== undefined && opts.db.trim() === '') throw new UsageError('--db must not be empty', { hint: 'give a database file, or use --memory' });
  if (opts.host.trim() === '') throw new UsageError('--host must not be empty');
  let tokenTtlSeconds = 3600;
  if (opts.tokenTtl !== undefined) {
    if (!/^\d+$/.test(opts.tokenTtl) || Number(opts.tokenTtl) < 1 || Number(opts.tokenTtl) > 31_536_000) {
      throw new UsageError(`invalid --token-ttl "${opts.tokenTtl}": give seconds from 1 to 31536000`);
    }
    tokenTtlSeconds = Number(opts.tokenTtl);
  }
  if (opts.webhookUrl !== undefined) {
    let url: URL | undefined;
    try { url = new URL(opts.webhookUrl); } catch { /* reported below */ }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new UsageError(`invalid --webhook-url "${opts.webhookUrl}": give an http(s) URL such as http://127.0.0.1:4020/webhook`);
    }
  }
  const dialect = opts.dialect === undefined || opts.dialect === '-'
    ? undefined
    : await servableDialect(opts.dialect, await (await import('../dialect-file.js')).dialectFromFile(opts.dialect));
  const memory = Boolean(opts.memory);
  return {
    port: Number(opts.port),
    host: opts.host.trim(),
    memory,
    dbFile: memory ? undefined : opts.db,
    dbFromFlag: opts.db !== undefined,
    webhookUrl: opts.webhookUrl,
    webhookScheme: opts.webhookScheme,
    tokenTtlSeconds,
    log: !opts.quietLog,
    faults,
    faultsText: opts.faults,
    faultsSeed,
    webhookFaults,
    webhookFaultsText: opts.webhookFaults,
    webhookFaultsSeed,
    dialect,
    dialectFile: opts.dialect,
    ...(opts.exchangesMax !== undefined ? { exchangesMax: parseCount('--exchanges-max', opts.exchangesMax) } : {}),
    ...(opts.exchangesMaxBytes !== undefined ? { exchangesMaxBytes: parseByteSize('--exchanges-max-bytes', opts.exchangesMaxBytes) } : {}),
  };
}

/** The parsed options with what needs the context: the default database in the data directory, a dialect from stdin. */
async function withContext(ctx: Context, options: ParsedServeOptions): Promise<ParsedServeOptions> {
  const dbFile = options.memory ? undefined : options.dbFile ?? join(dataDir(ctx.env), 'sandbox.db');
  if (options.dialectFile !== '-') return { ...options, dbFile };
  const { readDialectFile } = await import('../dialect-file.js');
  return { ...options, dbFile, dialect: await servableDialect('-', await readDialectFile(ctx, '-')) };
}

/** A dialect the sandbox can speak, or a usage error naming what it cannot. */
async function servableDialect(file: string, dialect: DialectOverrides): Promise<DialectOverrides> {
  const [{ resolveDialect }, { unservableDialect }] = await Promise.all([import('../../api/dialect.js'), import('../../sandbox/dialect.js')]);
  const unservable = unservableDialect(resolveDialect(dialect));
  if (unservable) throw new UsageError(`invalid --dialect ${file}: ${unservable}`);
  return dialect;
}

function parseCount(flag: string, text: string): number {
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) throw new UsageError(`invalid ${flag} "${text}": give a whole number from 1 to 999999999`);
  return Number(text);
}

const BYTE_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/** `1048576`, `512KiB`, `64MiB`, `1GiB`; at least 1 MiB (a record with a full 64 KiB reply must fit). */
function parseByteSize(flag: string, text: string): number {
  const match = /^(\d{1,10})\s*([a-z]*)$/i.exec(text.trim());
  const unit = match ? BYTE_UNITS[match[2]!.toLowerCase()] : undefined;
  const bytes = match && unit ? Number(match[1]) * unit : 0;
  if (!unit || bytes < 1024 ** 2 || bytes > 16 * 1024 ** 3) throw new UsageError(`invalid ${flag} "${text}": give a size from 1MiB to 16GiB, such as 64MiB or 1GiB`);
  return bytes;
}

function parseSeed(flag: string, text: string): number {
  if (!/^\d{1,10}$/.test(text) || Number(text) > 0xffffffff) {
    throw new UsageError(`invalid ${flag} "${text}": give a whole number from 0 to 4294967295`);
  }
  return Number(text);
}

/** The first stdout line of `sandbox serve --json`: what scripts read to drive the sandbox. */
export interface SandboxAnnouncement {
  baseUrl: string;
  institutionId: string;
  token: string;
  apiKey: string;
  cardProgramId: string;
  pinKeyFingerprint: string;
  /** The live inspector's page; its token is in the query. */
  inspectorUrl: string;
}

/** Exactly the announced keys, in the documented order, nothing else of the running sandbox. */
function announcement(sandbox: SandboxAnnouncement): SandboxAnnouncement {
  const { baseUrl, institutionId, token, apiKey, cardProgramId, pinKeyFingerprint, inspectorUrl } = sandbox;
  return { baseUrl, institutionId, token, apiKey, cardProgramId, pinKeyFingerprint, inspectorUrl };
}

function printBanner(ctx: Context, sandbox: SandboxAnnouncement, options: ParsedServeOptions, profileName: string | undefined): void {
  const lines = [
    `cardctl sandbox listening on ${sandbox.baseUrl}`,
    `  institution   ${sandbox.institutionId}`,
    `  card program  ${sandbox.cardProgramId}`,
    `  token         ${maskSecret(sandbox.token)}`,
    `  API key       ${maskSecret(sandbox.apiKey)}`,
    `  PIN key       ${sandbox.pinKeyFingerprint}  (GET ${sandbox.baseUrl}/sandbox/pin-key)`,
    `  database      ${options.memory ? 'in memory (gone when the sandbox stops)' : options.dbFile}`,
    `  API document  ${sandbox.baseUrl}/openapi.json`,
    `  inspector     ${sandbox.inspectorUrl}`,
    ...(options.faults ? [`  faults        ${options.faultsText || 'none'} (seed ${options.faultsSeed ?? 1}; change with PUT /sandbox/faults)`] : []),
    ...(options.dialectFile ? [`  dialect       ${options.dialectFile}`] : []),
    ...(options.webhookFaults ? [`  webhook faults ${options.webhookFaultsText || 'none'} (seed ${options.webhookFaultsSeed ?? 1}, the seeded institution's; change with PUT /sandbox/webhook-faults)`] : []),
    '',
    profileName
      ? `Stored as profile "${profileName}"${options.memory ? ' (ephemeral: it works while this sandbox runs)' : ''}. Try: cardctl cards list --profile ${profileName}`
      : 'Use it: run with --profile sandbox to store the credentials as a profile, or --json to print them.',
    'Ctrl-C stops the sandbox.',
    '',
  ];
  ctx.io.err(`${lines.join('\n')}\n`);
}

/**
 * `received` resolves on Ctrl-C (the context's signal) or SIGTERM. The SIGTERM listener stays
 * until `dispose`, after the sandbox has closed: writing the config (--profile) loads when-exit
 * (conf → atomically), which answers SIGTERM by sending the process SIGTERM again, and with no
 * listener left that second one would kill it before the database is closed.
 */
function stopSignal(signal: AbortSignal): { received: Promise<void>; dispose(): void } {
  let onStop = () => {};
  const received = new Promise<void>((resolve) => { onStop = () => resolve(); });
  if (signal.aborted) onStop();
  signal.addEventListener('abort', onStop, { once: true });
  process.on('SIGTERM', onStop);
  return {
    received,
    dispose: () => {
      signal.removeEventListener('abort', onStop);
      process.off('SIGTERM', onStop);
    },
  };
}

/** What `--host` opens when it is not loopback (docs/sandbox-api.md, "Who may call"). */
export function publishedWarning(host: string): string {
  const names = host === '0.0.0.0' || host === '::' ? 'any address of this machine' : host;
  return `binding to ${host} publishes the sandbox: other machines reach the API, and the /sandbox helpers too `
    + '(new institutions with their tokens, the switch clock, faults, advice delivery, replays to any URL); '
    + `requests must name it as ${names}, localhost, 127.0.0.1 or [::1] in their Host header; the inspector stays loopback only`;
}
