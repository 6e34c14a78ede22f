import type { Context } from '../../contract/context.js';
import { defineCommand } from '../../contract/command.js';
import { UsageError } from '../../core/errors.js';
import { isLoopbackHost, NotLoopbackError, notLoopbackReason } from '../../core/loopback.js';
import { redactValue } from '../../core/redact.js';
import { escapeControlsDeep } from '../../output/format.js';
import type { Exchange } from '../../listener/server.js';
import { HISTORY_BOUND, MAX_BODY_BYTES, REPEAT_BEHAVIOURS } from '../../listener/behaviours.js';
import { PARTIAL_APPROVAL_CODE } from '../../webhook-protocol/reply.js';
import { SIGNATURE_SCHEMES } from '../../webhook-protocol/signature.js';
import { checkSecretForScheme, webhookSecret } from './secret-stdin.js';

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
  mcp: 'never',
  summary: "play the institution's webhook locally and answer switch messages",
  description: `Runs a local HTTP server that plays your institution's webhook for \`simulate --forward\`.
Each incoming switch message is printed decoded (field names, PAN masked, amount with currency) and
answered with a response message: MTI + 10, the request echoed, 39 = --respond (default 00), or the
code of the first matching rule of --rules. --forward-to relays every message to your own handler
(on this machine: localhost, 127.0.0.0/8 or [::1], connected by the address checked) and shows its reply instead: a reply that the sandbox would accept (2xx, application/json, a
response message echoing the request, at most 64 KiB) is passed on; a timeout (504), an
unreachable handler, an error status or an invalid reply (502) is passed on as a failure (the
sandbox records 96), never as an approval.

The signature is verified with the secret from --secret-stdin or CARDCTL_WEBHOOK_SECRET, in
the scheme of --scheme: cardctl (X-Webhook-Signature: t=<unix>,v1=<HMAC-SHA256 hex of "t.body">,
the default) or standard-webhooks (webhook-id, webhook-timestamp, webhook-signature: v1,<base64>;
a whsec_ secret), as the card program's webHookConfig.type (http or standard-webhooks) signs. Any
one matching v1 signature passes (during a secret rotation the sandbox sends two); a bad, stale or
missing one is answered 401 (and shown). Without a secret, signatures are not checked (said once on
stderr). \`cardctl api GET /sandbox/card-programs\` shows a sandbox program's secret and type;
docs/webhook-protocol.md has the byte-level recipes.

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
      delay: 6000                    # ms; past the sandbox's 5 s timeout → 96
    - match: { amount: { min: 2000 } }
      respond: "10"
      approvedAmount: 1500           # partial approval: the answer's field 4
  failEvery: 5                       # every 5th message: HTTP 500, stand-in
  repeats: consistent                # or inconsistent (answers to repeats)

Institution behaviours without a rules file: --respond 10 --approved-amount 600 (partial approval),
--delay 6000 (past the deadline), --fail-every 3, --repeats inconsistent. A repeat is a message
with the STAN and RRN of an earlier one and the same message or its repeat (0101 after 0100, 0421
after 0420, a duplicate delivery); by default it gets the first answer again, with the response
MTI of the first (0110 to a 0101, 0430 to a 0421). A message without a STAN or an RRN is never a
repeat. With --forward-to your handler answers repeats; they are counted all the same, each marked
consistent or inconsistent by whether your handler answered it as the first.

GET /exchanges?stan=S&rrn=R answers what the listener received with that STAN and RRN
({deliveries, repeats, signature, messages}): \`simulate run\` reads it for \`webhook.*\` expectations.
The listener remembers the last ${HISTORY_BOUND.exchanges.toLocaleString('en')} exchanges, at most ${HISTORY_BOUND.bytes / 1024 / 1024} MiB of them (oldest first out);
a body over ${MAX_BODY_BYTES / 1024 / 1024} MiB is answered 413.`,
  flags: {
    port: { type: 'string', value: 'n', default: '4020', description: 'port to listen on (0 = any free port)' },
    host: { type: 'string', value: 'host', default: '127.0.0.1', description: 'address to bind' },
    respond: { type: 'string', value: 'code', default: '00', description: 'response code to answer with' },
    rules: { type: 'string', value: 'file', complete: 'file', description: 'YAML/JSON rules: match amount, PAN suffix, processing code, channel → code, delay' },
    secretStdin: { type: 'boolean', secret: true, description: 'read the webhook signing secret from stdin' },
    scheme: { type: 'string', value: 'scheme', choices: SIGNATURE_SCHEMES, default: 'cardctl', description: 'signature scheme to verify: cardctl (X-Webhook-Signature) or standard-webhooks' },
    forwardTo: { type: 'string', value: 'url', description: 'relay each message to your own handler on this machine and show its reply' },
    approvedAmount: { type: 'string', value: 'amount', description: 'with --respond 10: the amount approved (partial approval), major units' },
    delay: { type: 'string', value: 'ms', description: 'wait this long before answering (messages no rule decides)' },
    failEvery: { type: 'string', value: 'n', description: 'answer every Nth message HTTP 500, so the network stands in' },
    repeats: { type: 'string', value: 'how', choices: REPEAT_BEHAVIOURS, description: 'answer a repeat (same STAN and RRN) as the first time, or not (default consistent)' },
  },
  examples: [
    'cardctl webhook listen --port 4020 --respond 00',
    'cardctl webhook listen --rules rules.yaml --json',
    'echo "$WEBHOOK_SECRET" | cardctl webhook listen --secret-stdin --respond 51',
    'echo "$WEBHOOK_SECRET" | cardctl webhook listen --secret-stdin --scheme standard-webhooks',
    'cardctl webhook listen --forward-to http://localhost:8080/card-auth',
    'cardctl webhook listen --respond 10 --approved-amount 600 --fail-every 4 --repeats inconsistent',
  ],
  async parse({ opts }) {
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
      for (const flag of ['approvedAmount', 'delay', 'failEvery', 'repeats'] as const) {
        if (opts[flag] !== undefined) throw new UsageError(`--forward-to and --${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} cannot be used together: with --forward-to your handler decides`);
      }
      // The relay passes on the message in the clear and the signature headers: to this machine only.
      const elsewhere = notLoopbackReason(new URL(forwardTo));
      if (elsewhere) throw new UsageError(`invalid --forward-to "${opts.forwardTo}": ${elsewhere}; the handler must be on this machine`, { hint: 'run your handler locally, e.g. --forward-to http://127.0.0.1:8080/card-auth' });
    }
    const delay = opts.delay === undefined ? undefined : wholeNumber('--delay', opts.delay, 0, 120_000);
    const failEvery = opts.failEvery === undefined ? undefined : wholeNumber('--fail-every', opts.failEvery, 1, Number.MAX_SAFE_INTEGER);
    let approvedAmount: number | undefined;
    if (opts.approvedAmount !== undefined) {
      if (respond !== PARTIAL_APPROVAL_CODE) throw new UsageError(`--approved-amount goes with --respond ${PARTIAL_APPROVAL_CODE} (partial approval)`);
      approvedAmount = Number(opts.approvedAmount.replace(/,/g, ''));
      if (!/^\d[\d,]*(\.\d+)?$/.test(opts.approvedAmount.trim()) || !(approvedAmount > 0)) {
        throw new UsageError(`invalid --approved-amount "${opts.approvedAmount}": expected an amount above 0 in major units, e.g. 600.00`);
      }
    }
    let rules;
    if (opts.rules) {
      const [{ readNamedFile }, { parseRules }] = await Promise.all([import('../../core/text.js'), import('../../listener/rules.js')]);
      rules = await parseRules(await readNamedFile(opts.rules, 'rules file'), opts.rules);
    }
    return { opts, port, respond, forwardTo, delay, failEvery, approvedAmount, rules };
  },
  async run(ctx, { opts, port, respond, forwardTo, delay, failEvery, approvedAmount, rules }) {
    // The listener needs no profile, but a profile named by mistake is refused as everywhere.
    const { missingProfile } = await import('../../contract/context.js');
    const missing = missingProfile(ctx);
    if (missing) throw missing;
    const given = await webhookSecret(ctx, Boolean(opts.secretStdin), 'webhook listen');
    const secret = given === undefined ? undefined : checkSecretForScheme(given, opts.scheme, 'the webhook secret');

    const json = ['json', 'ndjson'].includes(ctx.settings().output);
    const { startListener } = await import('../../listener/server.js');
    const printer = json ? (exchange: Exchange) => ctx.io.out(`${JSON.stringify(exchange)}\n`) : await humanPrinter(ctx);
    // What a handler relayed (--forward-to) may carry anything: each line disclosed by the one rule.
    const print = (exchange: Exchange) => printer(redactValue(exchange) as Exchange);
    const listener = await startListener({
      port, host: opts.host, respond, rules, secret, scheme: opts.scheme, forwardTo, onExchange: print,
      defaults: { delay, approvedAmount }, failEvery, repeats: opts.repeats,
    }).catch((error: NodeJS.ErrnoException) => {
      if (error instanceof NotLoopbackError) throw new UsageError(`invalid --forward-to "${forwardTo}": ${error.reason}; the handler must be on this machine`);
      if (error.code === 'EADDRINUSE') throw new UsageError(`port ${port} on ${opts.host} is already in use`, { hint: 'pick another with --port, or --port 0 for any free port' });
      if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EACCES') throw new UsageError(`cannot listen on ${opts.host}:${port} (${error.code})`);
      throw error;
    });
    if (json) ctx.io.out(`${JSON.stringify({ type: 'listening', url: listener.url, signatures: secret ? 'verified' : 'unchecked', scheme: opts.scheme, forwardTo: forwardTo ?? null })}\n`);
    ctx.log.info(`Listening on ${listener.url} — point the card program's webHookConfig.url here (e.g. \`cardctl sandbox serve --webhook-url ${listener.url}\`). Ctrl-C to stop.`);
    if (!secret && !isLoopbackHost(opts.host)) {
      ctx.log.warn(`listening on ${opts.host} without a webhook secret (--secret-stdin or CARDCTL_WEBHOOK_SECRET): anyone who reaches this address gets answers, signatures unchecked`);
    } else if (!secret) ctx.log.warn('no webhook secret (--secret-stdin or CARDCTL_WEBHOOK_SECRET): signatures are not checked');
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

function wholeNumber(flag: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < min || Number(text) > max) throw new UsageError(`invalid ${flag} "${text}": expected a whole number from ${min} to ${max}`);
  return Number(text);
}

/** One block per exchange: the request line, its fields, and the answer line. */
export async function humanPrinter(ctx: Context): Promise<(exchange: Exchange) => void> {
  const [{ messageRows }, { isApproved }] = await Promise.all([import('../../iso8583/message.js'), import('../../iso8583/codes.js')]);
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
    const coloured = isApproved(x.responseCode) ? style.ok(code) : style.error(code);
    const relayedRepeat = x.decidedBy === 'forward' && x.repeat ? `a repeat, answered ${x.repeat === 'consistent' ? 'as' : 'unlike'} the first` : '';
    const why = [x.decidedBy === 'forward' ? `reply of ${x.forwardedTo} (HTTP ${x.forwardStatus})` : x.decidedBy, relayedRepeat, x.delayMs ? `delayed ${x.delayMs} ms` : '', `${x.durationMs} ms`].filter(Boolean).join(', ');
    ctx.io.out(`         ← ${x.response?.['0'] ?? ''} ${coloured}  ${style.dim(`(${why})`)}\n`);
  };
}
