// A credential with a line break, a control character, a space or a non-ASCII character is a bad
// credential (exit 3) wherever it comes from, refused before anything is sent; the value is never
// printed.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/app/cli.js';
import { credentialProblem } from '../../src/core/credentials.js';
import { cardctl } from '../helpers/cli.js';
import { testIO } from '../helpers/context.js';
import { isolatedDirs, scratchDir } from '../helpers/dirs.js';
import { envelope, startTestServer, type TestServer } from '../helpers/http-server.js';

const GOOD = 'tok_good_0123456789';
const SHAPES: Array<[string, string, RegExp]> = [
  ['a trailing line break', `${GOOD}\n`, /line break/],
  ['a CRLF inside', `tok_a\r\nX-Evil: 1`, /line break/],
  ['a tab', 'tok_a\tb', /a tab/],
  ['a space', 'tok_a b', /a space/],
  ['a NUL', 'tok_a\0b', /control character/],
  ['DEL', 'tok_a\x7fb', /control character/],
  ['an escape sequence', 'tok_\x1b[31mred', /control character/],
  ['an accented letter', 'tok_café', /non-ASCII/],
  ['a curly quote', 'tok_\u2019a', /non-ASCII/],
  ['a no-break space', 'tok_a\u00a0b', /non-ASCII/],
];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer((_req, res) => envelope(res, { id: 'x' }));
});
afterAll(() => server.close());

async function run(argv: string[], env: Record<string, string>, stdin = '') {
  const before = server.requests.length;
  const io = testIO({ stdin });
  const code = await main(argv, { io, env: { CI: '1', CARDCTL_BASE_URL: server.url, ...env }, signal: new AbortController().signal });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText(), sent: server.requests.length - before };
}

function withProfile(profile: Record<string, string>): Record<string, string> {
  const dir = scratchDir();
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ currentProfile: 'p', profiles: { p: { baseUrl: server.url, ...profile } } }));
  return isolatedDirs(dir);
}

describe('credentialProblem', () => {
  it.each(SHAPES)('finds %s', (_name, value, why) => {
    expect(credentialProblem(value)).toMatch(why);
  });
  it('accepts printable ASCII', () => {
    expect(credentialProblem('tok_A-z.0~9+/=_!')).toBeUndefined();
  });
});

type Source = { name: string; argv: string[]; env: (bad: string) => Record<string, string>; stdin?: (bad: string) => string; names: RegExp };
const SOURCES: Source[] = [
  { name: 'CARDCTL_TOKEN', argv: ['api', 'GET', '/institutions/cards'], env: (bad) => ({ ...isolatedDirs(scratchDir()), CARDCTL_TOKEN: bad }), names: /^error: CARDCTL_TOKEN contains/ },
  { name: 'the profile token', argv: ['api', 'GET', '/institutions/cards'], env: (bad) => withProfile({ token: bad }), names: /^error: the token of profile "p" contains/ },
  { name: 'CARDCTL_API_KEY', argv: ['api', 'POST', '/util/cards/import', '--api-key', '--data', '{}'], env: (bad) => ({ ...isolatedDirs(scratchDir()), CARDCTL_TOKEN: GOOD, CARDCTL_API_KEY: bad }), names: /^error: CARDCTL_API_KEY contains/ },
  { name: 'the profile API key', argv: ['api', 'POST', '/util/cards/import', '--api-key', '--data', '{}'], env: (bad) => withProfile({ token: GOOD, apiKey: bad }), names: /^error: the API key of profile "p" contains/ },
  { name: 'login --token-stdin', argv: ['login', '--base-url', 'https://api.example.com', '--token-stdin'], env: () => isolatedDirs(scratchDir()), stdin: (bad) => `x${bad}x`, names: /^error: --token-stdin: stdin contains/ },
  { name: 'login --api-key-stdin (line 2)', argv: ['login', '--base-url', 'https://api.example.com', '--token-stdin', '--api-key-stdin'], env: () => isolatedDirs(scratchDir()), stdin: (bad) => `${GOOD}\nx${bad.replace(/[\r\n]/g, '\u00e9')}x\n`, names: /^error: --api-key-stdin: the second line of stdin \(the API key\) contains/ },
];

describe.each(SOURCES)('$name', ({ argv, env, stdin, names }) => {
  it.each(SHAPES)('with %s → exit 3 before sending, the value not shown', async (_name, bad) => {
    // stdin is read line by line for two values and trimmed: a trailing line break is not part of the credential there.
    if (stdin && bad === `${GOOD}\n`) return;
    const result = await run(argv, env(bad), stdin?.(bad));
    expect(result.code, result.stderr).toBe(3);
    expect(result.sent).toBe(0);
    expect(result.stderr).toMatch(names);
    expect(result.stderr).toMatch(/not a valid credential, nothing was sent/);
    expect(result.stderr).not.toContain('tok_a');
    expect(result.stderr).not.toContain('caf');
    expect(result.stdout).toBe('');
  });

  it('accepts a good credential', async () => {
    const result = await run(argv, env(GOOD), stdin ? stdin('tok_fine_0123456789').replace(/^x|x$/gm, '') : undefined);
    expect(result.code, result.stderr).toBe(0);
  });
});

describe('spawned', () => {
  it('CARDCTL_TOKEN ending in a line break: exit 3 (was exit 6 "invalid authorization header")', async () => {
    const result = await cardctl(['cards', 'list'], { configDir: scratchDir(), env: { CARDCTL_BASE_URL: server.url, CARDCTL_TOKEN: `${GOOD}\n` } });
    expect(result.exitCode, result.stderr).toBe(3);
    expect(result.stderr).toMatch(/^error: CARDCTL_TOKEN contains a line break \(character 20 of 20\)/);
    expect(result.stderr).not.toContain(GOOD);
  });
});
