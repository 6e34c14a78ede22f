// Choosing a profile: a name that is not stored (typed with -p, in CARDCTL_PROFILE, or left as
// the current one after a removal) is "no such profile" with the stored names; an empty name is
// a usage error. Nothing is sent.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/app/cli.js';
import { testIO } from '../helpers/context.js';
import { isolatedDirs, scratchDir } from '../helpers/dirs.js';
import { envelope, startTestServer, type TestServer } from '../helpers/http-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer((_req, res) => envelope(res, []));
});
afterAll(() => server.close());

function configWith(current?: string): string {
  const dir = scratchDir();
  const profile = { baseUrl: server.url, token: 'tok_profile_123456' };
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ ...(current ? { currentProfile: current } : {}), profiles: { sbx: profile, prod: profile } }));
  return dir;
}

async function run(argv: string[], env: Record<string, string> = {}, current?: string, stdin = '') {
  const before = server.requests.length;
  const io = testIO({ stdin });
  const code = await main(argv, { io, env: { CI: '1', ...isolatedDirs(configWith(current)), ...env }, signal: new AbortController().signal });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText(), sent: server.requests.length - before };
}

describe('profile selection', () => {
  it.each([
    ['-p typo', ['-p', 'typo', 'tx', 'list'], {}, /^error: profile "typo" does not exist\nhint: stored profiles: prod, sbx\n$/],
    ['--profile=typo', ['--profile=typo', 'tx', 'list'], {}, /^error: profile "typo" does not exist/],
    ['-p typo with a base URL and token in the environment', ['-p', 'typo', 'tx', 'list'], { CARDCTL_BASE_URL: 'http://127.0.0.1:9', CARDCTL_TOKEN: 'tok_env_123456' }, /^error: profile "typo" does not exist/],
    ['CARDCTL_PROFILE=typo', ['tx', 'list'], { CARDCTL_PROFILE: 'typo' }, /^error: profile "typo" \(from CARDCTL_PROFILE\) does not exist\nhint: stored profiles: prod, sbx\n$/],
  ])('%s → exit 2 (a usage error, not the 4 of a missing card), the stored profiles listed', async (_name, argv, env, message) => {
    const result = await run(argv, env as Record<string, string>);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.sent).toBe(0);
  });

  it.each([['auth', 'token'], ['auth', 'status'], ['api', 'GET', '/x'], ['webhook', 'listen', '--port', '0']])('-p typo %s %s → exit 2 too (commands that read the profile without a list)', async (...argv) => {
    const result = await run(['-p', 'typo', ...argv]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/error: profile "typo" does not exist/);
    expect(result.sent).toBe(0);
  });

  it('a current profile that no longer exists → exit 2 naming it', async () => {
    const result = await run(['tx', 'list'], {}, 'gone');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: the current profile "gone" does not exist\nhint: stored profiles: prod, sbx; choose one with `cardctl profile use NAME`/);
  });

  it.each([
    ['-p ""', ['-p', '', 'tx', 'list'], {}, /^error: -p\/--profile needs a profile name\nhint: give -p NAME; stored profiles: prod, sbx/],
    ['--profile=', ['--profile=', 'tx', 'list'], {}, /^error: -p\/--profile needs a profile name/],
    ['-p "  "', ['-p', '  ', 'tx', 'list'], {}, /^error: -p\/--profile needs a profile name/],
    ['CARDCTL_PROFILE=""', ['tx', 'list'], { CARDCTL_PROFILE: '' }, /^error: CARDCTL_PROFILE is set but empty/],
  ])('%s → usage error (exit 2), not the default profile', async (_name, argv, env, message) => {
    const result = await run(argv, env as Record<string, string>, 'sbx');
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.sent).toBe(0);
  });

  it('existing profiles still work: -p, CARDCTL_PROFILE, the current one', async () => {
    expect((await run(['-p', 'prod', 'tx', 'list'])).code).toBe(0);
    expect((await run(['tx', 'list'], { CARDCTL_PROFILE: 'sbx' })).code).toBe(0);
    expect((await run(['tx', 'list'], {}, 'sbx')).code).toBe(0);
  });

  it('login -p NEW still creates a profile', async () => {
    const result = await run(['-p', 'new', 'login', '--base-url', 'https://api.example.com', '--token-stdin'], {}, undefined, 'tok_new_1234567890\n');
    expect(result.code, result.stderr).toBe(0);
  });
});
