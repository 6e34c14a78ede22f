// The certification against a handler written from docs/webhook-protocol.md alone, in Python's
// standard library (examples/webhook-handler): it passes under both signature schemes, and
// each of its deliberately broken variants fails with the right check named and exit 5 (the
// variants every example handler has: test/helpers/example-handlers.ts; then Python's own).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_NAMES } from '../../src/certify/checks.js';
import type { SignatureScheme } from '../../src/webhook-protocol/signature.js';
import { cardctl, tempDir } from '../helpers/cli.js';
import { pythonMissing, startPythonHandler, type HandlerVariant, type PythonHandler } from '../helpers/python-handler.js';
import { describeExampleHandler } from '../helpers/example-handlers.js';

describeExampleHandler('python', { describe, it, expect, beforeAll, afterAll }, CHECK_NAMES);

const SECRETS: Record<SignatureScheme, string> = {
  cardctl: 'python-certify-e2e-secret',
  'standard-webhooks': 'whsec_cHl0aG9uLWNlcnRpZnktZTJlLXNlY3JldC0wMTIzNDU=',
};
/** The secret a rotation retired (certify checks it is refused). */
const RETIRED: Record<SignatureScheme, string> = {
  cardctl: 'python-certify-e2e-retired',
  'standard-webhooks': 'whsec_cHl0aG9uLWNlcnRpZnktZTJlLXJldGlyZWQtMDEyMzQ1',
};

let config: { path: string; remove(): void };
const handlers: PythonHandler[] = [];
beforeAll(() => { config = tempDir(); });
afterAll(async () => {
  for (const handler of handlers) await handler.stop();
  config?.remove();
});

async function certifyPython(scheme: SignatureScheme, variant: HandlerVariant, args: string[]) {
  const handler = await startPythonHandler({ secret: SECRETS[scheme], scheme, variant });
  handlers.push(handler);
  const report = join(config.path, `${scheme}-${variant}.json`);
  const result = await cardctl(['webhook', 'certify', '--url', handler.url, '--secret-stdin', '--scheme', scheme, '--report', report, ...args],
    { configDir: config.path, input: `${SECRETS[scheme]}\n`, env: { CARDCTL_WEBHOOK_PREVIOUS_SECRET: RETIRED[scheme] }, timeout: 120_000 });
  const checks = (JSON.parse(readFileSync(report, 'utf8')) as { checks: Array<{ name: string; verdict: string }> }).checks;
  return { result, verdicts: Object.fromEntries(checks.map((c) => [c.name, c.verdict])) };
}

const failed = (verdicts: Record<string, string>) => Object.keys(verdicts).filter((name) => verdicts[name] === 'fail');

describe.skipIf(pythonMissing)(`webhook certify against the Python handler${pythonMissing ? ` (skipped: ${pythonMissing})` : ''}`, () => {
  it('no-signature-check: every refusal fails', async () => {
    const { result, verdicts } = await certifyPython('cardctl', 'no-signature-check', ['--skip', 'latency']);
    expect(result.exitCode, result.stderr).toBe(5);
    expect(failed(verdicts)).toEqual(CHECK_NAMES.filter((name) => name.startsWith('refuse-')));
  }, 120_000);

  it('refuse-advices: the advice checks fail', async () => {
    const { result, verdicts } = await certifyPython('standard-webhooks', 'refuse-advices', ['--only', 'authorization-reply,advice-0120,advice-0220,stand-in-advice,advice-before-original']);
    expect(result.exitCode, result.stderr).toBe(5);
    expect(failed(verdicts)).toEqual(['advice-0120', 'advice-0220', 'stand-in-advice', 'advice-before-original']);
  }, 120_000);

  it('repeat-0111: the repeat checks fail', async () => {
    const { result, verdicts } = await certifyPython('cardctl', 'repeat-0111', ['--only', 'authorization-reply,duplicate-delivery,repeat-authorization,repeat-reversal']);
    expect(result.exitCode, result.stderr).toBe(5);
    expect(failed(verdicts)).toEqual(['repeat-authorization', 'repeat-reversal']);
    expect(result.stderr).toMatch(/answered the repeat 0101 with 0111; the ISO answer is 0110/);
  }, 120_000);
});
