// The certification against a second handler written from docs/webhook-protocol.md alone, in
// Perl with core modules only (examples/webhook-handler/handler.pl): the protocol page is
// enough in any language, under both signature schemes.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_NAMES } from '../../src/certify/checks.js';
import type { SignatureScheme } from '../../src/webhook-protocol/signature.js';
import { cardctl, tempDir } from '../helpers/cli.js';

const HANDLER = fileURLToPath(new URL('../../examples/webhook-handler/handler.pl', import.meta.url));
const perlMissing = spawnSync('perl', ['-MJSON::PP', '-MDigest::SHA', '-e', '1']).status === 0 ? undefined : 'perl with JSON::PP and Digest::SHA is not installed';

const SECRETS: Record<SignatureScheme, string> = {
  cardctl: 'perl-certify-e2e-secret',
  'standard-webhooks': 'whsec_cGVybC1jZXJ0aWZ5LWUyZS1zZWNyZXQtMDEyMzQ1',
};

let config: { path: string; remove(): void };
const handlers: ResultPromise[] = [];
beforeAll(() => { config = tempDir(); });
afterAll(async () => {
  for (const handler of handlers) {
    handler.kill('SIGTERM');
    await handler.catch(() => undefined);
  }
  config?.remove();
});

/** handler.pl on a free port; its URL from its first stdout line. */
async function startHandler(scheme: SignatureScheme): Promise<string> {
  const child = execa('perl', [HANDLER, '0', scheme], {
    env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: SECRETS[scheme] }, extendEnv: false, reject: false, buffer: false, stdin: 'ignore', stderr: 'ignore',
  });
  handlers.push(child);
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('handler.pl did not start')), 20_000);
    createInterface({ input: child.stdout! }).once('line', (line) => { clearTimeout(timer); resolve(line); });
  });
  const match = /^listening (http:\/\/\S+)$/.exec(first);
  if (!match) throw new Error(`handler.pl's first line is not "listening URL": ${first}`);
  return match[1]!;
}

describe.skipIf(perlMissing)(`webhook certify against the Perl handler${perlMissing ? ` (skipped: ${perlMissing})` : ''}`, () => {
  for (const scheme of ['cardctl', 'standard-webhooks'] as const) {
    it(`passes every check (${scheme})`, async () => {
      const url = await startHandler(scheme);
      const report = join(config.path, `${scheme}.json`);
      const result = await cardctl(['webhook', 'certify', '--url', url, '--secret-stdin', '--scheme', scheme, '--report', report],
        { configDir: config.path, input: `${SECRETS[scheme]}\n`, timeout: 120_000 });
      expect(result.exitCode, result.stderr).toBe(0);
      const checks = (JSON.parse(readFileSync(report, 'utf8')) as { checks: Array<{ name: string; verdict: string }> }).checks;
      expect(checks.map((check) => check.name)).toEqual(CHECK_NAMES);
      // It never approves part of an amount, so that check has nothing to grade.
      expect(checks.filter((check) => check.verdict !== 'pass').map((check) => `${check.name} ${check.verdict}`)).toEqual(['partial-approval skip']);
    }, 120_000);
  }
});
