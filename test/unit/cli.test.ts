import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildProgram, main } from '../../src/app/cli.js';
import { commandTree } from '../../src/commands/index.js';
import { COMMAND_LOADERS } from '../../src/commands/routes.js';
import { isGroup } from '../../src/contract/command.js';
import { VERSION } from '../../src/version.js';
import { envelope, json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { testIO } from '../helpers/context.js';
import { isolatedDirs } from '../helpers/dirs.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cardctl-cli-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[], options: { env?: Record<string, string>; stdin?: string; signal?: AbortSignal } = {}) {
  const io = testIO({ stdin: options.stdin });
  const code = await main(args, { io, env: { ...isolatedDirs(dir), ...options.env }, signal: options.signal });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}

describe('the program', () => {
  it('--version and -V print the package version', async () => {
    for (const flag of ['--version', '-V']) {
      const result = await run([flag]);
      expect(result).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    }
    expect(VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("gh's habits: `cardctl` alone prints help to stdout (exit 0); `cardctl version`; `--json a,b` is exit 2 naming --fields", async () => {
    const bare = await run([]);
    expect(bare.code).toBe(0);
    expect(bare.stdout).toMatch(/^Usage: cardctl /);
    expect(bare.stderr).toBe('');
    expect(await run(['version'])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
    expect((await run(['version', '--verbose'])).stdout).toMatch(new RegExp(`^cardctl ${VERSION.replace(/\./g, '\\.')}\nnode v`));
    for (const argv of [['cards', 'list', '--json', 'id,status'], ['cards', 'activate', '--json', 'id,status'], ['cards', 'get', 'c1', '--json=id']]) {
      const result = await run(argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/^error: --json takes no list of fields here: it is -o json\nhint: use --fields id(,status)? -o json\n$/);
    }
  });

  it('--help lists every group and top-level command', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    const names = commandTree.map((c) => c.name);
    for (const name of ['cards', 'tx', 'simulate', 'webhook', 'import', 'oauth', 'users', 'login', 'logout', 'auth', 'profile', 'sandbox', 'demo', 'api', 'completion']) {
      expect(names).toContain(name);
    }
    for (const name of names) expect(stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });

  it('every leaf command has a summary and help that renders', () => {
    const program = buildProgram(commandTree);
    const walk = (nodes: typeof commandTree, path: string[]) => {
      for (const node of nodes) {
        expect(node.summary, [...path, node.name].join(' ')).toBeTruthy();
        if (isGroup(node)) walk(node.commands, [...path, node.name]);
      }
    };
    walk(commandTree, []);
    expect(program.helpInformation()).toContain('Usage: cardctl');
  });

  it('each top-level command loads on its own: every route loads the definition its key names, and the tree is the routes in order', async () => {
    expect(Object.keys(COMMAND_LOADERS)).toEqual(commandTree.map((c) => c.name));
    for (const node of commandTree) expect(await COMMAND_LOADERS[node.name]!(), node.name).toBe(node);
  });

  it('a command line routed to one top-level command parses as it does in the whole tree', async () => {
    // tx's alias is not a route: it takes the whole tree, and both reach the same command; the
    // routed line gives commander only the verb it names (run-cli.ts alongPath), with the same help.
    for (const args of [['tx', 'list', '--bogus'], ['transactions', 'list', '--bogus'], ['cards', 'lst']]) {
      const result = await run(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(/^error: /);
    }
    expect((await run(['tx', 'list', '--bogus'])).stderr).toBe((await run(['transactions', 'list', '--bogus'])).stderr);
    const help = await run(['tx', 'list', '--help']);
    expect(help.stdout).toMatch(/^Usage: cardctl tx list/);
    expect(help.stdout).toBe((await run(['transactions', 'list', '--help'])).stdout);
    expect((await run(['cards', 'lst'])).stderr).toMatch(/did you mean `list`/);
  });

  it('group help: `cardctl profile --help` and `cardctl help profile`', async () => {
    for (const args of [['profile', '--help'], ['help', 'profile']]) {
      const { code, stdout } = await run(args);
      expect(code).toBe(0);
      for (const verb of ['list', 'use', 'show', 'set', 'remove']) expect(stdout).toContain(verb);
    }
  });

  it('an unknown flag is a usage error (exit 2) with a one-line message and a hint', async () => {
    const { code, stdout, stderr } = await run(['profile', 'list', '--bogus']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    const lines = stderr.trimEnd().split('\n');
    expect(lines[0]).toBe("error: unknown option '--bogus'");
    expect(lines[1]).toMatch(/^hint: /);
    expect(lines).toHaveLength(2);
  });

  it('an unknown command is exit 2 and suggests the closest one', async () => {
    const { code, stderr } = await run(['cardz', 'list']);
    expect(code).toBe(2);
    expect(stderr).toContain("error: unknown command 'cardz'");
    expect(stderr).toMatch(/hint: did you mean `?cards`?\?/);
    const typo = await run(['profile', 'lst']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/did you mean `?list`?/);
  });

  it('a missing argument is exit 2; -o json also writes the error as JSON on stderr', async () => {
    const { code, stderr } = await run(['profile', 'use', '-o', 'json']);
    expect(code).toBe(2);
    const jsonLine = stderr.split('\n').find((l) => l.startsWith('{'))!;
    expect(JSON.parse(jsonLine)).toMatchObject({ error: { code: 'USAGE_missingArgument', exitCode: 2, message: expect.stringContaining("missing required argument 'name'") } });
  });

  it('an invalid --output choice and a bad --timeout are exit 2', async () => {
    expect((await run(['profile', 'list', '-o', 'yaml'])).code).toBe(2);
    expect((await run(['--timeout', 'soon', 'api', 'GET', '/x'], { env: { CARDCTL_BASE_URL: 'https://api.example.com', CARDCTL_TOKEN: 't' } })).code).toBe(2);
  });

  it('--no-color takes the colour off error: and hint: lines on a terminal, as NO_COLOR does', async () => {
    const colourRun = async (args: string[], env: Record<string, string> = {}) => {
      const io = testIO({ tty: true });
      await main(args, { io, env: { ...isolatedDirs(dir), ...env } });
      return io.stderrText();
    };
    // eslint-disable-next-line no-control-regex
    const ESC = /\x1b\[/;
    expect(await colourRun(['profile', 'use', 'nosuch'])).toMatch(ESC);
    for (const args of [['--no-color', 'profile', 'use', 'nosuch'], ['profile', 'use', 'nosuch', '--no-color'], ['cardz', '--no-color']]) {
      const stderr = await colourRun(args);
      expect(stderr, args.join(' ')).toMatch(/^error: /);
      expect(stderr, args.join(' ')).not.toMatch(ESC);
    }
    expect(await colourRun(['profile', 'use', 'nosuch'], { NO_COLOR: '1' })).not.toMatch(ESC);
  });

  it('no stack trace without --debug', async () => {
    const { stderr } = await run(['api', 'GET', '/x']);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

describe('api', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer((req, res) => envelope(res, [{ id: 'c1', status: 'active', path: req.url }]));
  });
  afterEach(() => server.close());
  const env = () => ({ CARDCTL_BASE_URL: server.url, CARDCTL_TOKEN: 'tok_cli_test_123456', CARDCTL_API_KEY: 'key_cli_test_123456' });

  it('GET with a query string, data printed through the renderer', async () => {
    const { code, stdout } = await run(['api', 'get', '/institutions/cards?search=ADA&limit=2', '-o', 'json'], { env: env() });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual([{ id: 'c1', status: 'active', path: '/institutions/cards?search=ADA&limit=2' }]);
    expect(server.requests[0]!.method).toBe('GET');
    expect((await run(['api', 'GET', '/institutions/cards', '-q'], { env: env() })).stdout).toBe('c1\n');
  });

  it('a path alone is a GET (as gh api); a method alone still needs its path', async () => {
    const { code, stdout } = await run(['api', '/institutions/cards?limit=2', '-o', 'json'], { env: env() });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual([{ id: 'c1', status: 'active', path: '/institutions/cards?limit=2' }]);
    expect(server.requests.map((r) => r.method)).toEqual(['GET']);
    const methodOnly = await run(['api', 'POST'], { env: env() });
    expect(methodOnly.code).toBe(2);
    expect(methodOnly.stderr).toMatch(/^error: missing <path>/);
    expect(server.requests).toHaveLength(1);
  });

  it('-o raw prints the body as received', async () => {
    server.fallback((_q, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"statusCode":200,  "data":{"id":"x"}}'); });
    expect((await run(['api', 'GET', '/x', '-o', 'raw'], { env: env() })).stdout).toBe('{"statusCode":200,  "data":{"id":"x"}}\n');
  });

  it('an envelope without data prints the whole body', async () => {
    server.fallback((_q, res) => json(res, 200, { statusCode: 200, message: 'application created' }));
    const result = await run(['api', 'POST', '/institutions/oauth/create', '--data', '{}', '--json'], { env: env() });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ statusCode: 200, message: 'application created' });
  });

  it('--data as JSON text, @FILE and - (stdin); --api-key', async () => {
    const file = join(dir, 'body.json');
    writeFileSync(file, '{"from":"file"}');
    expect((await run(['api', 'POST', '/a', '--data', '{"from":"argv"}'], { env: env() })).code).toBe(0);
    expect((await run(['api', 'PUT', '/b', '--data', `@${file}`], { env: env() })).code).toBe(0);
    expect((await run(['api', 'PATCH', '/c', '--data', '-', '--api-key'], { env: env(), stdin: '{"from":"stdin"}' })).code).toBe(0);
    expect(server.requests.map((r) => [r.method, r.url, JSON.parse(r.body)])).toEqual([
      ['POST', '/a', { from: 'argv' }],
      ['PUT', '/b', { from: 'file' }],
      ['PATCH', '/c', { from: 'stdin' }],
    ]);
    expect(server.requests[2]!.headers['x-api-key']).toBe('key_cli_test_123456');
    expect(server.requests[2]!.headers.authorization).toBeUndefined();
  });

  it('bad input is exit 2 and nothing is sent', async () => {
    const bad = await run(['api', 'POST', '/a', '--data', '{oops'], { env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--data');
    expect((await run(['api', 'FETCH', '/a'], { env: env() })).code).toBe(2);
    expect((await run(['api', 'POST', '/a', '--data', '@/nonexistent/file.json'], { env: env() })).code).toBe(2);
    expect((await run(['api', 'GET', 'https://evil.example.com/x'], { env: env() })).code).toBe(2);
    expect((await run(['api', 'GET', '/a', '--data', '{}'], { env: env() })).code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });

  it('API errors map to exit codes, with the JSON error object under --json', async () => {
    server.fallback((_q, res) => json(res, 404, { statusCode: 404, message: 'card not found', error: 'NOT_FOUND' }));
    const result = await run(['api', 'GET', '/institutions/cards/nope', '--json'], { env: env() });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^error: not found: card not found$/m);
    const error = JSON.parse(result.stderr.split('\n').find((l) => l.startsWith('{'))!);
    expect(error).toEqual({ error: { code: 'NOT_FOUND', exitCode: 4, message: 'not found: card not found', status: 404, details: null } });
  });

  it('no base URL or no token: exit 3 with a login hint', async () => {
    const noUrl = await run(['api', 'GET', '/x']);
    expect(noUrl.code).toBe(3);
    expect(noUrl.stderr).toMatch(/hint: .*cardctl login/);
    const noToken = await run(['api', 'GET', '/x'], { env: { CARDCTL_BASE_URL: server.url } });
    expect(noToken.code).toBe(3);
  });

  it('Ctrl-C (the run signal aborted) while waiting → exit 130', async () => {
    server.fallback(() => { /* never answers */ });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const result = await run(['api', 'GET', '/slow'], { env: env(), signal: controller.signal });
    expect(result.code).toBe(130);
    expect(result.stderr).toContain('interrupted');
  });
});

describe('auth status', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer((req, res) => req.headers.authorization === 'Bearer tok_good_1234567890'
      ? envelope(res, [])
      : req.headers.authorization === 'Bearer tok_narrow_1234567890'
        ? json(res, 403, { statusCode: 403, message: 'this token lacks scope read:card', error: 'FORBIDDEN', details: { requiredScope: 'read:card' } })
        : json(res, 401, { statusCode: 401, message: 'invalid token', error: 'UNAUTHORIZED' }));
  });
  afterEach(() => server.close());

  async function login(token: string) {
    expect((await run(['login', '--base-url', server.url, '--token-stdin'], { stdin: token })).code).toBe(0);
  }

  it('a working token: exit 0, masked token, valid', async () => {
    await login('tok_good_1234567890');
    const { code, stdout } = await run(['auth', 'status', '-o', 'json']);
    expect(code).toBe(0);
    const status = JSON.parse(stdout);
    expect(status).toMatchObject({ profile: 'default', current: true, baseUrl: server.url, token: 'tok_…7890', tokenStatus: 'valid' });
    expect(stdout).not.toContain('tok_good_1234567890');
    expect(server.requests[0]!.url).toBe('/institutions/cards?limit=1');
  });

  it('a rejected token: shows invalid and exits 3', async () => {
    await login('tok_bad_00000000000');
    const { code, stdout, stderr } = await run(['auth', 'status']);
    expect(code).toBe(3);
    expect(stdout).toMatch(/^tokenStatus\tinvalid$/m);
    expect(stderr).toMatch(/hint: .*cardctl login/);
  });

  it('a token accepted but without the scope of the check request (403 naming read:card): valid, lacking it, exit 0', async () => {
    await login('tok_narrow_1234567890');
    const { code, stdout } = await run(['auth', 'status', '-o', 'json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ tokenStatus: 'valid (lacks read:card)' });
  });

  it('not logged in: exit 3 without a request; unreachable: exit 6', async () => {
    expect((await run(['auth', 'status'])).code).toBe(3);
    expect(server.requests).toHaveLength(0);
    const url = server.url;
    await server.close();
    server = await startTestServer();
    expect((await run(['login', '--base-url', url, '--token-stdin'], { stdin: 'tok_good_1234567890' })).code).toBe(0);
    const result = await run(['auth', 'status', '--retries', '0']);
    expect(result.code).toBe(6);
    expect(result.stdout).toMatch(/^tokenStatus\tunreachable$/m);
  });

  it('auth token prints the token; CARDCTL_TOKEN overrides', async () => {
    await login('tok_good_1234567890');
    expect((await run(['auth', 'token'])).stdout).toBe('tok_good_1234567890\n');
    expect((await run(['auth', 'token'], { env: { CARDCTL_TOKEN: 'tok_env' } })).stdout).toBe('tok_env\n');
    // A profile that is not stored is "no such profile" (exit 2, a usage error), not "not logged in".
    const other = await run(['-p', 'other', 'auth', 'token']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/^error: profile "other" does not exist\nhint: stored profiles: default/);
  });
});
