// The example handlers of examples/webhook-handler (each written from docs/webhook-protocol.md
// alone): Java (JDK only, compiled here into a temp folder), Python, Perl. Each takes its secret
// from WEBHOOK_SECRET, the previous one of a rotation from WEBHOOK_PREVIOUS_SECRET (accepted until
// WEBHOOK_PREVIOUS_SECRET_UNTIL) and a variant that breaks it one way; each prints
// `listening URL` first. BROKEN names, per variant, the narrowed certify run that must catch it.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import type { SignatureScheme } from '../../src/webhook-protocol/signature.js';
import { cardctl } from './cli.js';
import { listening, pythonMissing, startPythonHandler, type BrokenVariant } from './python-handler.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/webhook-handler/', import.meta.url));

export type Language = 'java' | 'python' | 'perl';

/** Why a language's handler cannot run here, or undefined. */
export const MISSING: Record<Language, string | undefined> = {
  java: spawnSync('javac', ['-version']).status === 0 && spawnSync('java', ['-version']).status === 0 ? undefined : 'javac and java (a JDK) are not installed',
  python: pythonMissing,
  perl: spawnSync('perl', ['-MJSON::PP', '-MDigest::SHA', '-e', '1']).status === 0 ? undefined : 'perl with JSON::PP and Digest::SHA is not installed',
};

/** A secret of each scheme, and the retired one a rotation replaced. */
export const SECRETS: Record<SignatureScheme, { secret: string; retired: string }> = {
  cardctl: { secret: 'example-handler-e2e-secret', retired: 'example-handler-e2e-retired' },
  'standard-webhooks': { secret: 'whsec_ZXhhbXBsZS1oYW5kbGVyLWUyZS1zZWNyZXQtMDE=', retired: 'whsec_ZXhhbXBsZS1oYW5kbGVyLWUyZS1yZXRpcmVkLTAx' },
};

export interface BrokenCase {
  variant: BrokenVariant;
  /** The false green it was (the issue's words). */
  what: string;
  /** The narrowed run (with the retired secret given). */
  args: string[];
  /** The checks that must fail, exactly. */
  failed: string[];
  /** What stderr must say. */
  reason: RegExp;
}

export const BROKEN: readonly BrokenCase[] = [
  { variant: 'keep-hold', what: 'reversals that never give the money back', args: ['--only', 'reversal-full'], failed: ['reversal-full'], reason: /✗ reversal-full: after the full reversal of [\d.]+, an authorization of [\d.]+ was (declined 51|approved for [\d.]+ only).*the money did not come back/ },
  { variant: 'echo-secrets', what: 'replies that echo card secrets', args: ['--only', 'authorization-reply'], failed: ['authorization-reply'], reason: /✗ authorization-reply: the reply to the authorization 0100 carries card secrets: field 14 \[Expiration date \(YYMM\)\], field 35 \[Track 2 data\]/ },
  { variant: 'retired-forever', what: 'a retired secret accepted for ever', args: ['--only', 'refuse-retired-secret'], failed: ['refuse-retired-secret'], reason: /✗ refuse-retired-secret: approved a message signed only with the retired secret/ },
  { variant: 'one-signature', what: 'a handler that refuses two v1 signatures', args: ['--only', 'rotation-two-signatures'], failed: ['rotation-two-signatures'], reason: /✗ rotation-two-signatures: a message signed with two secrets \(the handler's secret first\) got no valid answer: the webhook answered HTTP 401/ },
  { variant: 'decline-all', what: 'a handler that declines every authorization', args: ['--only', 'authorization-reply,increment,reversal-full'], failed: ['increment', 'reversal-full'], reason: /✗ increment: needs an approved authorization; the handler declined it 05/ },
  { variant: 'garbage-1-in-10', what: 'garbage on one reply in ten', args: ['--only', 'latency'], failed: ['latency'], reason: /✗ latency: \d+ of 15 got no usable reply under load.*the webhook reply is not JSON/ },
  { variant: 'http-500', what: 'HTTP 500 to everything, the README\'s CI recipe', args: ['--only', 'refuse-wrong-secret,latency'], failed: ['refuse-wrong-secret', 'latency'], reason: /✗ refuse-wrong-secret: the reply to the authorization 0100 is not a valid answer: the webhook answered HTTP 500/ },
];

export interface RunningHandler {
  url: string;
  stop(): Promise<void>;
}

export interface HandlerOptions {
  scheme: SignatureScheme;
  variant?: BrokenVariant | 'none';
  /** The retired secret, its window over: a sound handler refuses it. */
  retired?: boolean;
}

let javaClasses: string | undefined;

/** WebhookHandler.java compiled once per test file into `dir`: the classes' folder. */
export function compileJava(dir: string): string {
  if (javaClasses) return javaClasses;
  const out = join(dir, 'java-classes');
  const compiled = spawnSync('javac', ['-d', out, join(EXAMPLES, 'WebhookHandler.java')], { encoding: 'utf8' });
  if (compiled.status !== 0) throw new Error(`javac failed:\n${compiled.stderr}`);
  javaClasses = out;
  return out;
}

/** A handler of `language` on a free port; `classes` is compileJava()'s folder for Java. */
export async function startExampleHandler(language: Language, options: HandlerOptions, classes?: string): Promise<RunningHandler> {
  const { secret, retired } = SECRETS[options.scheme];
  const variant = options.variant ?? 'none';
  // The window of the retired secret closed a second after the epoch.
  const rotation = options.retired ? { WEBHOOK_PREVIOUS_SECRET: retired, WEBHOOK_PREVIOUS_SECRET_UNTIL: '1' } : {};
  if (language === 'python') {
    return startPythonHandler({ secret, scheme: options.scheme, variant, ...(options.retired ? { previousSecret: retired, previousSecretUntil: 1 } : {}) });
  }
  const command: [string, string[]] = language === 'java'
    ? ['java', ['-cp', classes ?? '', 'WebhookHandler', '0', options.scheme]]
    : ['perl', [join(EXAMPLES, 'handler.pl'), '0', options.scheme]];
  const child: ResultPromise = execa(command[0], command[1], {
    env: { PATH: process.env.PATH ?? '', WEBHOOK_SECRET: secret, WEBHOOK_VARIANT: variant, ...rotation },
    extendEnv: false, reject: false, buffer: false, stdin: 'ignore', stderr: 'ignore',
  });
  return listening(child, `the ${language} handler`, 30_000);
}

/** `webhook certify` against `url` with the scheme's secret on stdin and the retired one in the environment; the exit, the output and each check's verdict. */
export async function certifyExample(url: string, scheme: SignatureScheme, configDir: string, report: string, args: string[] = []) {
  const { secret, retired } = SECRETS[scheme];
  const result = await cardctl(['webhook', 'certify', '--url', url, '--secret-stdin', '--scheme', scheme, '--report', report, ...args],
    { configDir, input: `${secret}\n`, env: { CARDCTL_WEBHOOK_PREVIOUS_SECRET: retired }, timeout: 120_000 });
  const checks = (JSON.parse(readFileSync(report, 'utf8')) as { checks: Array<{ name: string; verdict: string }> }).checks;
  return { result, verdicts: Object.fromEntries(checks.map((c) => [c.name, c.verdict])) as Record<string, string> };
}

export const failedChecks = (verdicts: Record<string, string>) => Object.keys(verdicts).filter((name) => verdicts[name] === 'fail');

/**
 * The tests every example handler gets: green under both schemes (every check but
 * partial-approval passes, the retired secret refused), and each BROKEN variant red, exit 5, with
 * exactly its checks failed and the reason said. Skipped, saying why, where the toolchain is missing.
 */
export function describeExampleHandler(language: Language, hooks: { describe: typeof import('vitest').describe; it: typeof import('vitest').it; expect: typeof import('vitest').expect; beforeAll: typeof import('vitest').beforeAll; afterAll: typeof import('vitest').afterAll }, names: readonly string[]): void {
  const { describe, it, expect, beforeAll, afterAll } = hooks;
  const missing = MISSING[language];
  describe.skipIf(missing)(`webhook certify against the ${language} example handler${missing ? ` (skipped: ${missing})` : ''}`, () => {
    let dir: { path: string; remove(): void };
    let classes: string | undefined;
    const running: RunningHandler[] = [];
    beforeAll(async () => {
      const { tempDir } = await import('./cli.js');
      dir = tempDir();
      if (language === 'java') classes = compileJava(dir.path);
    }, 120_000);
    afterAll(async () => {
      for (const handler of running) await handler.stop();
      dir?.remove();
    });
    const start = async (options: HandlerOptions) => {
      const handler = await startExampleHandler(language, options, classes);
      running.push(handler);
      return handler.url;
    };

    for (const scheme of ['cardctl', 'standard-webhooks'] as const) {
      it(`passes every check (${scheme}); it never approves part of an amount, so that check alone is skipped`, async () => {
        const url = await start({ scheme, retired: true });
        const { result, verdicts } = await certifyExample(url, scheme, dir.path, join(dir.path, `${language}-${scheme}.json`));
        expect(result.exitCode, result.stderr).toBe(0);
        expect(Object.keys(verdicts)).toEqual(names);
        expect(Object.entries(verdicts).filter(([, verdict]) => verdict !== 'pass')).toEqual([['partial-approval', 'skip']]);
        expect(result.stderr).toMatch(/^\d+ passed, 0 failed, 1 skipped$/m);
      }, 120_000);
    }

    for (const broken of BROKEN) {
      it(`${broken.variant} (${broken.what}): ${broken.failed.join(', ')} fail${broken.failed.length === 1 ? 's' : ''}, exit 5`, async () => {
        const scheme = broken.variant === 'retired-forever' ? 'standard-webhooks' : 'cardctl';
        const url = await start({ scheme, variant: broken.variant, retired: true });
        const { result, verdicts } = await certifyExample(url, scheme, dir.path, join(dir.path, `${language}-${broken.variant}.json`), broken.args);
        expect(result.exitCode, result.stderr).toBe(5);
        expect(failedChecks(verdicts)).toEqual(broken.failed);
        expect(result.stderr).toMatch(broken.reason);
      }, 120_000);
    }
  });
}
