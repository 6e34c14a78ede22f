// End to end: `cardctl webhook certify` through the built binary. The project's reference
// handler (`cardctl webhook listen`) passes every check; small handlers broken on purpose, started
// here, each fail with the right check named and exit 5: one that checks no signature, one that
// answers 500 to advices, one that answers repeats 0111, a slow one. The verdicts come from the
// sandbox's record of the exchange: these handlers say nothing about themselves.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_NAMES } from '../../src/certify/checks.js';
import { answerMtisOf, isRepeatMti, NOT_ECHOED } from '../../src/webhook-protocol/reply.js';
import { verifyRequest, type SignatureScheme } from '../../src/webhook-protocol/signature.js';
import { cardctl, startSandboxProcess, startWebhookListener, tempDir, type RunningSandbox, type WebhookListener } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/http-server.js';
import { elementsNamed, parseXml } from '../helpers/xml.js';

const SECRET = 'whsec_Y2VydGlmeS1lMmUtc2VjcmV0LTMyLWJ5dGVzLWxvbmc=';
/** The secret a rotation retired: every handler here must refuse it (refuse-retired-secret). */
const RETIRED = 'whsec_cmV0aXJlZC1lMmUtc2VjcmV0LTMyLWJ5dGVzLWxvbmc=';

interface Behaviour {
  verify?: boolean;
  scheme?: SignatureScheme;
  advices?: 'acknowledge' | 'fail';
  repeats?: 'iso' | 'own';
  delayMs?: number;
  /** The code given to every request (default 00). */
  code?: string;
}

/** A handler answering 00 (or `code`) to everything, echoing the request, broken in the ways `behaviour` says. */
async function startHandler(behaviour: Behaviour): Promise<TestServer> {
  return startTestServer(async (req, res) => {
    if (behaviour.verify !== false && !verifyRequest(behaviour.scheme ?? 'cardctl', req.headers, SECRET, req.body).ok) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad signature"}');
      return;
    }
    const message = JSON.parse(req.body) as Record<string, string>;
    const mti = message['0'] ?? '';
    if (behaviour.advices === 'fail' && /^0[12]2/.test(mti)) {
      res.writeHead(500).end();
      return;
    }
    if (behaviour.delayMs) await new Promise((resolve) => setTimeout(resolve, behaviour.delayMs));
    const [iso, own] = answerMtisOf(mti);
    const replyMti = behaviour.repeats === 'own' && isRepeatMti(mti) ? own! : iso!;
    // The request echoed, but for the card secrets and expiry a reply never carries.
    const echoed = Object.fromEntries(Object.entries(message).filter(([field]) => !NOT_ECHOED.has(field)));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...echoed, '0': replyMti, '39': behaviour.code ?? '00', '38': 'A12345' }));
  });
}

let config: { path: string; remove(): void };
beforeAll(() => { config = tempDir(); });
afterAll(() => config?.remove());

async function certify(url: string, args: string[] = [], secret = SECRET, env: Record<string, string> = { CARDCTL_WEBHOOK_PREVIOUS_SECRET: RETIRED }) {
  return cardctl(['webhook', 'certify', '--url', url, '--secret-stdin', ...args], { configDir: config.path, input: `${secret}\n`, env, timeout: 120_000 });
}

/** The verdict of each check in a JSON report. */
function verdicts(file: string): Record<string, string> {
  const report = JSON.parse(readFileSync(file, 'utf8')) as { checks: Array<{ name: string; verdict: string }> };
  return Object.fromEntries(report.checks.map((c) => [c.name, c.verdict]));
}

const REFUSALS = CHECK_NAMES.filter((name) => name.startsWith('refuse-'));

describe('the reference handler, cardctl webhook listen', () => {
  let listener: WebhookListener;
  beforeAll(async () => { listener = await startWebhookListener({ configDir: config.path, secret: SECRET }); }, 30_000);
  afterAll(async () => { await listener?.stop(); });

  it('passes every check; the JSON, JUnit and Markdown reports hold every check and no secret or full card number', async () => {
    const dir = config.path;
    const files = { report: join(dir, 'certify.json'), junit: join(dir, 'certify.xml'), markdown: join(dir, 'certify.md') };
    const result = await certify(listener.url, ['--report', files.report, '--junit', files.junit, '--markdown', files.markdown, '--seed', '7']);
    expect(result.exitCode, result.stderr).toBe(0);
    const table = verdicts(files.report);
    expect(Object.keys(table)).toEqual(CHECK_NAMES);
    expect(Object.entries(table).filter(([, verdict]) => verdict === 'fail')).toEqual([]);
    // `listen` answers 00 unless told otherwise: it never partially approves.
    expect(table['partial-approval']).toBe('skip');

    const report = JSON.parse(readFileSync(files.report, 'utf8'));
    expect(report).toMatchObject({ scheme: 'cardctl', seed: 7, url: listener.url.endsWith('/') ? listener.url : `${listener.url}/`, summary: { failed: 0 } });
    const junit = parseXml(readFileSync(files.junit, 'utf8'));
    expect(elementsNamed(junit, 'testcase').map((c) => c.attributes.name)).toEqual(CHECK_NAMES);
    expect(elementsNamed(junit, 'failure')).toEqual([]);
    for (const text of [...Object.values(files).map((f) => readFileSync(f, 'utf8')), result.stdout, result.stderr]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toMatch(/(?<!\d)\d{13,19}(?!\d)/);
    }
  }, 120_000);

  it('passes under the Standard Webhooks scheme too (listen --scheme standard-webhooks)', async () => {
    const standard = await startWebhookListener({ configDir: config.path, secret: SECRET, args: ['--scheme', 'standard-webhooks'] });
    try {
      const result = await certify(standard.url, ['--scheme', 'standard-webhooks', '--skip', 'latency']);
      expect(result.exitCode, result.stderr).toBe(0);
    } finally {
      await standard.stop();
    }
  }, 120_000);
});

describe('with -p, a running sandbox', () => {
  let sandbox: RunningSandbox;
  let listener: WebhookListener;
  beforeAll(async () => {
    // Its own config directory: the profile `sb` is stored there by `sandbox serve --profile`.
    sandbox = await startSandboxProcess(['--profile', 'sb', '--quiet-log'], { configDir: config.path });
    listener = await startWebhookListener({ configDir: config.path, secret: SECRET, args: ['--respond', '10', '--approved-amount', '6'] });
  }, 30_000);
  afterAll(async () => { await listener?.stop(); await sandbox?.stop(); });

  it('certifies through it (partial approval graded when the handler gives one) and puts its webhook faults back', async () => {
    const set = await cardctl(['-p', 'sb', 'api', 'PUT', '/sandbox/webhook-faults', '--data', '{"spec":"delay=1ms","seed":3}'], { configDir: config.path });
    expect(set.exitCode, set.stderr).toBe(0);
    const report = join(config.path, 'profile.json');
    const result = await cardctl(['-p', 'sb', 'webhook', 'certify', '--url', listener.url, '--secret-stdin', '--only', 'partial-approval,refuse-stale-future', '--report', report],
      { configDir: config.path, input: `${SECRET}\n` });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(verdicts(report)).toEqual({ 'refuse-stale-future': 'pass', 'partial-approval': 'pass' });
    const written = JSON.parse(readFileSync(report, 'utf8')) as { sandbox: string; checks: Array<{ evidence: Array<{ request: { stan?: string } }> }> };
    expect(written.sandbox).toBe('profile sb');
    // The shared sandbox numbers from 000001 after a restart: the run's messages carry STANs of its own, from a random point.
    const stans = written.checks.flatMap((check) => check.evidence.map((e) => Number(e.request.stan)));
    expect(stans.length).toBeGreaterThan(0);
    expect(stans.every((stan) => stan > 20)).toBe(true);
    const faults = await cardctl(['-p', 'sb', 'api', 'GET', '/sandbox/webhook-faults', '-o', 'json'], { configDir: config.path });
    expect(JSON.parse(faults.stdout)).toMatchObject({ spec: expect.stringContaining('delay=1ms'), seed: 3 });
  }, 60_000);
});

const servers: TestServer[] = [];
describe('handlers broken on purpose fail the right check, exit 5', () => {
  const handler = async (behaviour: Behaviour) => { const server = await startHandler(behaviour); servers.push(server); return server.url; };
  afterAll(async () => { for (const server of servers) await server.close(); });

  for (const scheme of ['cardctl', 'standard-webhooks'] as const) {
    it(`no signature check (${scheme}): every refusal fails, the authorization passes; a handler that verifies passes them`, async () => {
      const only = ['--only', ['authorization-reply', ...REFUSALS].join(','), '--scheme', scheme];
      const report = join(config.path, `nosig-${scheme}.json`);
      const broken = await certify(await handler({ verify: false }), [...only, '--report', report]);
      expect(broken.exitCode, broken.stderr).toBe(5);
      expect(verdicts(report)).toEqual({ 'authorization-reply': 'pass', ...Object.fromEntries(REFUSALS.map((name) => [name, 'fail'])) });
      expect(broken.stderr).toMatch(/✗ refuse-wrong-secret: approved a message signed with another secret/);
      expect(broken.stderr).toMatch(/6 checks failed: refuse-wrong-secret, refuse-stale-past, refuse-stale-future, refuse-missing-signature, refuse-tampered-body, refuse-retired-secret/);

      const sound = await certify(await handler({ scheme }), only);
      expect(sound.exitCode, sound.stderr).toBe(0);
    }, 60_000);
  }

  it('declines everything and checks no signature: every refusal fails (a decline proves nothing when the correctly signed twin is declined too); one that answers 401 passes', async () => {
    const only = ['--only', ['authorization-reply', ...REFUSALS].join(',')];
    const report = join(config.path, 'decline-all.json');
    const broken = await certify(await handler({ verify: false, code: '05' }), [...only, '--report', report]);
    expect(broken.exitCode, broken.stderr).toBe(5);
    expect(verdicts(report)).toEqual({ 'authorization-reply': 'pass', ...Object.fromEntries(REFUSALS.map((name) => [name, 'fail'])) });
    expect(broken.stderr).toMatch(/declined the same message correctly signed too/);

    const sound = await certify(await handler({ code: '05' }), only);
    expect(sound.exitCode, sound.stderr).toBe(0);
  }, 60_000);

  it('declines everything: a check whose setup needs an approval fails; with the decline given as policy in --rules it is skipped, saying so', async () => {
    const url = await handler({ code: '05' });
    const only = ['--only', 'authorization-reply,increment,reversal-full'];
    const failing = await certify(url, [...only, '--report', join(config.path, 'decline-policy-no.json')]);
    expect(failing.exitCode, failing.stderr).toBe(5);
    expect(verdicts(join(config.path, 'decline-policy-no.json'))).toEqual({ 'authorization-reply': 'pass', increment: 'fail', 'reversal-full': 'fail' });
    const rules = join(config.path, 'decline-policy.yaml');
    writeFileSync(rules, 'expect: { authorization-reply: ["05"] }\n');
    const policy = await certify(url, [...only, '--rules', rules, '--report', join(config.path, 'decline-policy-yes.json')]);
    expect(policy.exitCode, policy.stderr).toBe(0);
    expect(verdicts(join(config.path, 'decline-policy-yes.json'))).toEqual({ 'authorization-reply': 'pass', increment: 'skip', 'reversal-full': 'skip' });
    expect(policy.stdout).toMatch(/increment\tskip\tneeds an approved authorization; the handler declined it 05 \(Do not honor\), its policy by the rules file/);
    expect(policy.stderr).toMatch(/^1 passed, 0 failed, 2 skipped$/m);
  }, 90_000);

  it('500 to every advice: the advice checks fail (not acknowledged within the window)', async () => {
    const report = join(config.path, 'advices.json');
    const result = await certify(await handler({ advices: 'fail' }), ['--only', 'authorization-reply,advice-0120,advice-0220,stand-in-advice', '--report', report]);
    expect(result.exitCode, result.stderr).toBe(5);
    expect(verdicts(report)).toEqual({ 'authorization-reply': 'pass', 'advice-0120': 'fail', 'advice-0220': 'fail', 'stand-in-advice': 'fail' });
    expect(result.stderr).toMatch(/✗ advice-0120: the 0120 was not acknowledged within 5 s \(\d attempts; last: the webhook answered HTTP 500\)/);
  }, 90_000);

  it('repeats answered 0111 and 0431: the repeat checks fail naming the ISO answer', async () => {
    const report = join(config.path, 'repeats.json');
    const result = await certify(await handler({ repeats: 'own' }), ['--only', 'duplicate-delivery,repeat-authorization,repeat-reversal', '--report', report]);
    expect(result.exitCode, result.stderr).toBe(5);
    expect(verdicts(report)).toEqual({ 'duplicate-delivery': 'pass', 'repeat-authorization': 'fail', 'repeat-reversal': 'fail' });
    expect(result.stderr).toMatch(/answered the repeat 0101 with 0111; the ISO answer is 0110/);
    expect(result.stderr).toMatch(/answered the repeat 0421 with 0431; the ISO answer is 0430/);
  }, 60_000);

  it('slow past the deadline: the authorization and the latency fail', async () => {
    const report = join(config.path, 'slow.json');
    const result = await certify(await handler({ delayMs: 5_300 }), ['--only', 'authorization-reply,latency', '--rate', '2/s', '--duration', '1s', '--report', report]);
    expect(result.exitCode, result.stderr).toBe(5);
    expect(verdicts(report)).toEqual({ 'authorization-reply': 'fail', latency: 'fail' });
    expect(result.stderr).toMatch(/✗ latency: 2 of 2 timed out under load/);
  }, 60_000);

  it('duplicates answered with another approval code: the reason names field 38', async () => {
    let approvals = 0;
    const url = (await startTestServer((req, res) => {
      const message = JSON.parse(req.body) as Record<string, string>;
      approvals += 1;
      const echoed = Object.fromEntries(Object.entries(message).filter(([field]) => !NOT_ECHOED.has(field)));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...echoed, '0': answerMtisOf(message['0'] ?? '')[0], '39': '00', '38': String(approvals).padStart(6, '0') }));
    }).then((server) => { servers.push(server); return server.url; }));
    const result = await certify(url, ['--only', 'duplicate-delivery']);
    expect(result.exitCode, result.stderr).toBe(5);
    expect(result.stderr).toMatch(/✗ duplicate-delivery: the two deliveries of one message were answered differently: field 38 \[Authorization identification response\] "\d{6}" then "\d{6}"/);
  }, 60_000);
});

describe('usage', () => {
  it('a secret the scheme cannot use is a usage error (exit 2) before anything is sent, for certify and listen alike', async () => {
    const server = await startTestServer();
    try {
      for (const secret of ['whsec_', 'whsec_not base64!', 'plain-text-secret', 'whsec_c2hvcnQ=']) {
        const certified = await certify(server.url, ['--scheme', 'standard-webhooks'], secret, {});
        expect(certified.exitCode, certified.stderr).toBe(2);
        expect(certified.stderr).toMatch(/^error: the webhook secret is not a Standard Webhooks secret: expected whsec_ and the base64 of 24 to 64 bytes\n/);
        const listened = await cardctl(['webhook', 'listen', '--secret-stdin', '--scheme', 'standard-webhooks', '--port', '0'], { configDir: config.path, input: `${secret}\n` });
        expect(listened.exitCode, listened.stderr).toBe(2);
        expect(listened.stderr).toMatch(/^error: the webhook secret is not a Standard Webhooks secret/);
      }
      const retired = await certify(server.url, ['--scheme', 'standard-webhooks'], SECRET, { CARDCTL_WEBHOOK_PREVIOUS_SECRET: 'not-whsec' });
      expect(retired.exitCode).toBe(2);
      expect(retired.stderr).toMatch(/^error: the retired secret is not a Standard Webhooks secret/);
      const bothOnStdin = await cardctl(['webhook', 'certify', '--url', server.url, '--secret-stdin', '--previous-secret-stdin'], { configDir: config.path, input: `${SECRET}\n` });
      expect(bothOnStdin.exitCode).toBe(2);
      expect(bothOnStdin.stderr).toMatch(/--secret-stdin and --previous-secret-stdin both read stdin/);
      // Nothing reached the webhook.
      expect(server.requests).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('an unknown check is a usage error listing the names; no secret is one too (exit 2)', async () => {
    const unknown = await certify('http://127.0.0.1:9/hook', ['--only', 'nope']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain(`the checks are: ${CHECK_NAMES.join(', ')}`);
    const noSecret = await cardctl(['webhook', 'certify', '--url', 'http://127.0.0.1:9/hook'], { configDir: config.path });
    expect(noSecret.exitCode).toBe(2);
    // The two places a secret comes from; never argv, never a profile.
    expect(noSecret.stderr).toMatch(/^error: no webhook secret: give it on stdin with --secret-stdin, or in CARDCTL_WEBHOOK_SECRET\n/);
    const badUrl = await certify('ftp://example/hook');
    expect(badUrl.exitCode).toBe(2);
  });
});
