// `cardctl webhook certify`: runs the certification's checks (src/certify/) against an
// institution's webhook through a sandbox (its own, in this process, or a running one with
// --profile), prints the verdicts, writes the reports, exits 5 when a check fails.
import { defineCommand } from '../../contract/command.js';
import { RejectedError } from '../../core/errors.js';
import { SIGNATURE_SCHEMES } from '../../webhook-protocol/signature.js';
import { CHECKS, RULED_CHECK_NAMES } from '../../certify/checks.js';
import { DEFAULT_LATENCY } from '../../certify/latency.js';
import { ACKNOWLEDGEMENT_WINDOW_MS } from '../../certify/context.js';
import { parseLatencyDuration, parseRate, parseRules, parseSeed, parseWebhookUrl, selectChecks } from '../../certify/options.js';

/** Each check's name, then what it proves, wrapped to fit 80 columns. */
const checkList = CHECKS.map((check) => `  ${check.name}\n${wrapped(check.proves, '      ', 78)}`).join('\n');

function wrapped(text: string, indent: string, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent.length + line.length + 1 + word.length > width) { lines.push(line); line = word; } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].map((l) => `${indent}${l}`).join('\n');
}

export default defineCommand({
  name: 'certify',
  // It starts a sandbox of its own and reads the webhook secret: an operator's tool, not an assistant's.
  mcp: 'never',
  output: async () => {
    const [{ outputShape }, { summaryKeys }] = await Promise.all([import('../../output/shape.js'), import('../output-shapes.js')]);
    return outputShape(summaryKeys<import('../../certify/runner.js').CheckResult>({ name: true, proves: true, verdict: true, reason: true, evidence: true, durationMs: true }));
  },
  summary: "certify your institution's webhook: a suite of checks graded from what crossed the wire",
  description: `Sends your webhook the messages of the card lifecycle and the network's bad days through a
sandbox, and grades each check from what the sandbox sent, what came back and what it retried:
never from anything the handler says about itself. Prints a table of checks (check, verdict,
reason); each failure's reason and evidence (card numbers masked) follow on stderr.

By default an in-memory sandbox is started in this process: a card program whose webhook is --url,
signed with the secret (--secret-stdin, else CARDCTL_WEBHOOK_SECRET) in --scheme. With
-p/--profile NAME of a sandbox profile (\`cardctl sandbox serve --profile NAME\`), that running
sandbox is used instead: a new card program there points at --url. The faults the checks inject
are that program's only (other tenants, and another run on the same sandbox, never get them), and
are taken off when the run ends, also on Ctrl-C, SIGTERM or SIGHUP.

Checks (select with --only a,b or --skip a,b):
${checkList}

Every reply of the run counts, whatever check sent it (a setup message, the latency run, a
check left out of the grading): one that is not a valid answer (status, content type, JSON, MTI,
echoed fields, field 39) or that carries a card secret (14, 35, 36, 45, 52, 55) fails the check
whose message it was. Refusals pass on a non-2xx status (answer 401), or on a decline when the
same message correctly signed, sent just before, was approved. A decline is a valid reply, but a
check whose setup needs an approval fails when it is declined, unless --rules FILE gives that
code as the handler's policy for authorizations. The rules state the codes expected of the
checks graded on a reply (${RULED_CHECK_NAMES.join(', ')}), each a list meaning "one of":
  expect: { authorization-reply: ["00", "51"], refund: "00" }

Money: the sandbox finds what the handler approves for the test card (halving an amount until
approved), holds it, releases it (a reversal, a refund, a timeout reversal) and asks it again:
it must be approved. A rotation: every message signed with two secrets is answered as when signed
once; with the retired secret (CARDCTL_WEBHOOK_PREVIOUS_SECRET, or --previous-secret-stdin while
the current one is in CARDCTL_WEBHOOK_SECRET), a message signed only with it must be refused.

Advices and timeout reversals have ${ACKNOWLEDGEMENT_WINDOW_MS / 1000} s to be acknowledged (the sandbox retries
meanwhile). The latency check sends authorizations at --rate (default ${DEFAULT_LATENCY.perSecond}/s) for
--duration (default ${DEFAULT_LATENCY.durationMs / 1000}s); its p99 must be under the network's 5 s deadline.
--seed seeds the webhook faults (default 1): a run replays.

Reports: --report FILE.json (cardctl version, date, URL with userinfo redacted, scheme, seed, every
check with verdict, reason and evidence), --junit FILE.xml (one test case per check, for CI),
--markdown FILE (for a ticket). No secret and no full card number is in any of them.

The last line reads "N passed, N failed, N skipped". Exit codes: 0 no check failed (a check is
skipped only with its reason: the handler never partially approves, no retired secret given, a
decline the rules call policy), 5 a check failed, 2 usage (a secret the scheme cannot use included).`,
  flags: {
    url: { type: 'string', value: 'url', description: 'the webhook to certify (http or https)' },
    secretStdin: { type: 'boolean', secret: true, description: "read the webhook's signing secret from stdin (else CARDCTL_WEBHOOK_SECRET)" },
    previousSecretStdin: { type: 'boolean', secret: true, description: 'read the retired secret of a rotation from stdin (else CARDCTL_WEBHOOK_PREVIOUS_SECRET; the current one then from the environment)' },
    scheme: { type: 'string', value: 'scheme', choices: SIGNATURE_SCHEMES, default: 'cardctl', description: 'signature scheme: cardctl (X-Webhook-Signature) or standard-webhooks' },
    only: { type: 'string', value: 'checks', description: 'run only these checks (comma-separated names)' },
    skip: { type: 'string', value: 'checks', description: 'leave out these checks (comma-separated names)' },
    rules: { type: 'string', value: 'file', complete: 'file', description: 'YAML/JSON: the response codes expected per check' },
    rate: { type: 'string', value: 'n/s', default: `${DEFAULT_LATENCY.perSecond}/s`, description: 'latency check: authorizations a second' },
    duration: { type: 'string', value: 'duration', default: `${DEFAULT_LATENCY.durationMs / 1000}s`, description: 'latency check: how long' },
    seed: { type: 'string', value: 'n', default: '1', description: 'seed of the webhook faults (a run replays)' },
    report: { type: 'string', value: 'file', complete: 'file', description: 'write the JSON report here' },
    junit: { type: 'string', value: 'file', complete: 'file', description: 'write a JUnit XML report here (one test case per check)' },
    markdown: { type: 'string', value: 'file', complete: 'file', description: 'write a Markdown report here (for a ticket)' },
  },
  examples: [
    'echo "$WEBHOOK_SECRET" | cardctl webhook certify --url http://127.0.0.1:8080/card-auth --secret-stdin',
    'cardctl webhook certify --url http://127.0.0.1:8080/card-auth --secret-stdin --junit certify.xml < secret.txt',
    'cardctl webhook certify --url http://127.0.0.1:8080/card-auth --secret-stdin --only refuse-wrong-secret,latency --rate 10/s --duration 5s < secret.txt',
    'cardctl -p sandbox webhook certify --url http://127.0.0.1:8080/card-auth --secret-stdin --scheme standard-webhooks < secret.txt',
  ],
  async parse({ opts }) {
    let expect: Record<string, readonly string[]> = {};
    if (opts.rules !== undefined) {
      const { readNamedFile } = await import('../../core/text.js');
      expect = await parseRules(await readNamedFile(opts.rules, 'rules file'), opts.rules);
    }
    return {
      url: parseWebhookUrl(opts.url),
      secretStdin: opts.secretStdin === true,
      previousSecretStdin: opts.previousSecretStdin === true,
      scheme: opts.scheme,
      checks: selectChecks(opts.only, opts.skip),
      expect,
      latency: { perSecond: parseRate(opts.rate), durationMs: parseLatencyDuration(opts.duration) },
      seed: parseSeed(opts.seed),
      outputs: { report: opts.report, junit: opts.junit, markdown: opts.markdown },
      profile: opts.profile,
    };
  },
  async run(ctx, input) {
    const { certify } = await import('./certify-run.js');
    const { failed } = await certify(ctx, input);
    if (failed.length > 0) {
      throw new RejectedError(`${failed.length} check${failed.length > 1 ? 's' : ''} failed: ${failed.join(', ')}`, { code: 'CERTIFY_FAILED', details: { failed } });
    }
  },
});
