import type { Context } from '../../core/context.js';
import { defineCommand } from '../../core/command.js';
import { UsageError } from '../../core/errors.js';
import { escapeControlsDeep } from '../../output/format.js';
import type { Exchange } from './listener.js';

interface ListenOptions {
  port: string;
  host: string;
  respond: string;
  rules?: string;
  secretStdin?: boolean;
  forwardTo?: string;
}

export default defineCommand({
  name: 'listen',
  summary: "play the institution's webhook locally and answer switch messages",
  description: `Runs a local HTTP server that plays your institution's webhook for \`simulate --forward\`.
Each incoming switch message is printed decoded (field names, PAN masked, amount with currency) and
answered with a response message: MTI + 10, the request echoed, 39 = --respond (default 00), or the
code of the first matching rule of --rules. --forward-to relays every message to your own handler
and shows its reply instead: a reply that the sandbox would accept (2xx, application/json, a
response message echoing the request, at most 64 KiB) is passed on; a timeout (504), an
unreachable handler, an error status or an invalid reply (502) is passed on as a failure (the
sandbox records 96), never as an approval.

X-Webhook-Signature (t=<unix>,v1=<HMAC-SHA256 hex of "t.body">) is verified with the secret from
--secret-stdin or the profile's webhookSecret; a bad signature is answered 401 (and shown). Without
a secret, signatures are not checked (said once on stderr). The sandbox signs with the card
program's webHookConfig.secret: \`cardctl api GET /sandbox/card-programs\` shows it.

Point the sandbox at it: \`cardctl sandbox serve --webhook-url http://127.0.0.1:4020\`.
With --json, one NDJSON object per exchange on stdout (the first line says where it listens).
Ctrl-C stops it (exit 0).

Rules file (YAML or JSON): first match wins.
  default: "00"
  rules:
    - name: big cash at ATMs
      match: { amount: { min: 50000 }, processingCode: "01", channel: atm }
      respond: "61"
    - match: { panSuffix: "0008", mti: "0100" }
      respond: "05"
    - match: { amount: 13.13 }      # major units of field 49's currency
      respond: "00"
      delay: 6000                    # ms; past the sandbox's 5 s timeout → 96`,
  flags: {
    port: { type: 'string', value: 'n', default: '4020', description: 'port to listen on (0 = any free port)' },
    host: { type: 'string', value: 'host', default: '127.0.0.1', description: 'address to bind' },
    respond: { type: 'string', value: 'code', default: '00', description: 'response code to answer with' },
    rules: { type: 'string', value: 'file', complete: 'file', description: 'YAML/JSON rules: match amount, PAN suffix, processing code, channel → code, delay' },
    secretStdin: { type: 'boolean', secret: true, description: 'read the webhook signing secret from stdin' },
    forwardTo: { type: 'string', value: 'url', description: 'relay each message to your own handler and show its reply' },
  },
  examples: [
    'cardctl webhook listen --port 4020 --respond 00',
    'cardctl webhook listen --rules rules.yaml --json',
    'echo "$WEBHOOK_SECRET" | cardctl webhook listen --secret-stdin --respond 51',
    'cardctl webhook listen --forward-to http://localhost:8080/card-auth',
  ],
  async run(ctx, { opts }) {
    // The listener needs no profile, but a profile named by mistake is refused as everywhere.
    const { missingProfile } = await import('../../core/context.js');
    const missing = missingProfile(ctx);
    if (missing) throw missing;
    const port = Number(opts.port);
    if (!/^\d+$/.test(String(opts.port)) || port > 65_535) throw new UsageError(`invalid --port "${opts.port}": expected 0 to 65535`);
    const respond = String(opts.respond).trim().toUpperCase();
    const { isValidResponseCode } = await import('../../iso8583/codes.js');
    if (!isValidResponseCode(respond)) throw new UsageError(`invalid --respond "${opts.respond}": expected a two-character response code such as 00 or 51`);
    let forwardTo: string | undefined;
    if (opts.forwardTo !== undefined) {
      try {
        const url = new URL(opts.forwardTo);
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
        forwardTo = url.href;
      } catch {
        throw new UsageError(`invalid --forward-to "${opts.forwardTo}": expected an http(s) URL`);
      }
      if (opts.rules) throw new UsageError('--forward-to and --rules cannot be used together: with --forward-to your handler decides');
    }
    let rules;
    if (opts.rules) {
      const [{ readTextFile }, { parseRules }] = await Promise.all([import('../../core/text.js'), import('./rules.js')]);
      let text: string;
      try {
        text = await readTextFile(opts.rules);
      } catch (error) {
        throw new UsageError(`cannot read rules file ${opts.rules}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
      rules = await parseRules(text, opts.rules);
    }
    let secret: string | undefined;
    if (opts.secretStdin) {
      const { lineReader } = await import('../../core/io.js');
      secret = (await lineReader(ctx.io.stdin).next())?.trim();
      if (!secret) throw new UsageError('--secret-stdin: stdin is empty; pipe the webhook secret in, e.g. echo "$SECRET" | cardctl webhook listen --secret-stdin');
    } else {
      secret = ctx.settings().profile.webhookSecret || undefined;
    }

    const json = ['json', 'ndjson'].includes(ctx.settings().output);
    const { startListener } = await import('./listener.js');
    const print = json ? (exchange: Exchange) => ctx.io.out(`${JSON.stringify(exchange)}\n`) : await humanPrinter(ctx);
    const listener = await startListener({ port, host: opts.host, respond, rules, secret, forwardTo, onExchange: print }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') throw new UsageError(`port ${port} on ${opts.host} is already in use`, { hint: 'pick another with --port, or --port 0 for any free port' });
      if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EACCES') throw new UsageError(`cannot listen on ${opts.host}:${port} (${error.code})`);
      throw error;
    });
    if (json) ctx.io.out(`${JSON.stringify({ type: 'listening', url: listener.url, signatures: secret ? 'verified' : 'unchecked', forwardTo: forwardTo ?? null })}\n`);
    ctx.log.info(`Listening on ${listener.url} — point the card program's webHookConfig.url here (e.g. \`cardctl sandbox serve --webhook-url ${listener.url}\`). Ctrl-C to stop.`);
    if (!secret) ctx.log.warn('no webhook secret (--secret-stdin or the profile\'s webhookSecret): signatures are not checked');
    if (forwardTo) ctx.log.info(`Relaying every message to ${forwardTo}`);
    else if (rules) ctx.log.info(`Answering by ${rules.rules.length} rule(s) of ${opts.rules}, else ${rules.default ?? respond}`);
    else ctx.log.info(`Answering ${respond}`);

    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) return resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await listener.close();
    ctx.log.info('stopped');
  },
});

/** One block per exchange: the request line, its fields, and the answer line. */
export async function humanPrinter(ctx: Context): Promise<(exchange: Exchange) => void> {
  const { messageRows } = await import('../../iso8583/message.js');
  const { style } = ctx;
  return (exchange) => {
    // What came over the network, with its control characters made visible before it is shown.
    const x = escapeControlsDeep(exchange);
    const time = x.at.slice(11, 19);
    const head = [x.mti ?? '????', x.amount, x.pan, x.stan && `STAN ${x.stan}`, x.rrn && `RRN ${x.rrn}`, x.channel].filter(Boolean).join(' · ');
    const sig = x.signature === 'valid' ? style.ok('signature ✓') : x.signature === 'invalid' ? style.error('signature ✗') : style.dim('signature unchecked');
    ctx.io.out(`${style.dim(time)} → ${style.bold(head)}  ${sig}\n`);
    if (x.signature === 'invalid') {
      ctx.io.out(`         ${style.error(`✗ refused (401): ${x.error}`)}\n`);
      return;
    }
    if (x.request) {
      for (const row of messageRows(x.request)) {
        ctx.io.out(`    ${row.field.padStart(3)}  ${row.name.padEnd(44)} ${row.value}${row.meaning ? `  ${style.dim(row.meaning)}` : ''}\n`);
      }
    }
    if (x.error && !x.responseCode) {
      const answered = x.status ? `answered the switch HTTP ${x.status}` : 'no answer sent';
      ctx.io.out(`         ${style.error(`✗ ${x.error}`)}  ${style.dim(`(${[answered, `${x.durationMs} ms`].join(', ')})`)}\n`);
      return;
    }
    const code = x.responseCode ? `${x.responseCode} ${x.responseMessage}` : `HTTP ${x.status} without a response code`;
    const coloured = x.responseCode === '00' ? style.ok(code) : style.error(code);
    const why = [x.decidedBy === 'forward' ? `reply of ${x.forwardedTo} (HTTP ${x.forwardStatus})` : x.decidedBy, x.delayMs ? `delayed ${x.delayMs} ms` : '', `${x.durationMs} ms`].filter(Boolean).join(', ');
    ctx.io.out(`         ← ${x.response?.['0'] ?? ''} ${coloured}  ${style.dim(`(${why})`)}\n`);
  };
}
