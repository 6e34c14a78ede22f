// End to end: what a hostile or careless user does to the output — --jq filters that never end,
// readers that go away, Ctrl-C; a card whose names are a CSV formula and terminal escapes; unknown
// --fields; `cards create -q`. Run `npm run build` first.
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cardctl, cleanEnv, startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';
import { createCardOverHttp } from '../sandbox/helpers.js';

let config: { path: string; remove(): void };
let sandbox: RunningSandbox;
let env: Record<string, string>;
let hostileId: string;

const FORMULA = "=cmd|'/C calc'!A0";
// Sets the window title, then turns the text red; then a right-to-left override.
const ESCAPES = 'Evil\x1b]0;pwned\x07\x1b[31mRED\u202Etxt.exe';
const ESCAPES_SHOWN = 'Evil\\x1b]0;pwned\\x07\\x1b[31mRED\\u202etxt.exe';
/** Flags of a valid `cards create` (PIN 4821 on stdin) with these names. */
const createFlags = (firstName: string, lastName: string) => [
  'cards', 'create', '--program', sandbox.info.cardProgramId, '--first-name', firstName, '--last-name', lastName,
  '--embossing-name', 'ADA OBI', '--email', 'ada@example.com', '--phone', '+2348012345678',
  '--account-number', '0123456789', '--account-type', 'savings', '--pin-stdin',
];
/** Any raw control or bidi/format character (the output must have none: it is piped, so uncoloured). */
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /(?![\t\n])[\p{Cc}\p{Cf}]/u;

async function setFaults(body: unknown): Promise<void> {
  const response = await fetch(`${sandbox.info.baseUrl}/sandbox/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(response.status).toBe(200);
}

const run = (args: string[], input?: string) => cardctl(args, { configDir: config.path, env, input });

/** cardctl with stdout read as a stream (not buffered by execa). */
function spawnCardctl(args: string[]) {
  return execa('node', [BIN, ...args], {
    env: cleanEnv({ CARDCTL_CONFIG_DIR: config.path, CARDCTL_DATA_DIR: config.path, ...env }),
    extendEnv: false,
    reject: false,
    buffer: { stdout: false, stderr: true },
    stdin: 'ignore',
  });
}

/** Resolves with what came on `stream` up to and including the first newline. */
function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes('\n')) {
        stream.off('data', onData);
        resolve(text.slice(0, text.indexOf('\n') + 1));
      }
    };
    stream.on('data', onData);
    stream.once('end', () => reject(new Error(`ended before a line: ${JSON.stringify(text)}`)));
  });
}

beforeAll(async () => {
  config = tempDir('cardctl-e2e-output-');
  sandbox = await startSandboxProcess([], { configDir: config.path });
  env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token };
  // Made over HTTP: cards create refuses control characters in a name, but the API may hold
  // whatever another client stored, and the output must be safe for it.
  hostileId = await createCardOverHttp(sandbox.info, {
    customer: {
      firstName: FORMULA, middleName: '', lastName: ESCAPES, emailAddress: 'ada@example.com', phoneNumber: '+2348012345678',
      dateOfBirth: '1990-12-10T00:00:00.000Z',
      address: { line1: '1 Marina', line2: '', city: 'Lagos', state: 'Lagos', country: 'NG', postalCode: '100001' },
    },
  });
}, 60_000);

afterAll(async () => {
  await sandbox?.stop();
  config?.remove();
});

describe('a card named with a CSV formula and terminal escapes', () => {
  it('-o json and ndjson carry the names exactly', async () => {
    const json = await run(['cards', 'get', hostileId, '-o', 'json']);
    expect(JSON.parse(json.stdout).customer).toMatchObject({ firstName: FORMULA, lastName: ESCAPES });
    const ndjson = await run(['cards', 'list', '-o', 'ndjson']);
    expect(JSON.parse(ndjson.stdout.split('\n')[0]!).customer).toMatchObject({ firstName: FORMULA, lastName: ESCAPES });
  });

  it('-o csv: the formula gets a quote in front, in a list and in a record', async () => {
    const list = await run(['cards', 'list', '-o', 'csv', '--fields', 'id,customer.firstName']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout).toBe(`id,customer.firstName\n${hostileId},'${FORMULA}\n`);
    const record = await run(['cards', 'get', hostileId, '-o', 'csv', '--fields', 'id,customer.firstName,customer.lastName']);
    expect(record.stdout).toContain(`,'${FORMULA},`);
  });

  it('tables and key/value views (piped), --template: escapes are shown, never sent raw', async () => {
    for (const args of [['cards', 'list', '--fields', 'id,customer.lastName'], ['cards', 'get', hostileId], ['cards', 'list', '--template', '{{.customer.lastName}}']]) {
      const result = await run(args);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout, args.join(' ')).toContain(ESCAPES_SHOWN);
      expect(RAW_CONTROL.test(result.stdout), args.join(' ')).toBe(false);
    }
  });

  it('FORCE_COLOR=1 colours what is coloured in a pipe, such as doctor\'s marks (chalk, loaded only then)', async () => {
    const coloured = await cardctl(['doctor'], { configDir: config.path, env: { ...env, FORCE_COLOR: '1' } });
    expect(coloured.stdout).toContain('\x1b[32m✓\x1b[39m');
    const plain = await run(['doctor']);
    expect(plain.stdout).toContain('✓');
    expect(plain.stdout).not.toContain('\x1b[');
  });
});

describe('unknown --fields', () => {
  it('is exit 2 naming the field and listing known ones, in lists and records, in every format', async () => {
    for (const args of [['cards', 'list'], ['cards', 'list', '--all'], ['cards', 'get', hostileId], ['tx', 'list']]) {
      for (const format of ['table', 'json', 'ndjson', 'csv']) {
        const result = await run([...args, '-o', format, '--fields', 'id,custmer.firstName']);
        if (args[0] === 'tx') {
          // No transaction yet: nothing to check the name against, nothing printed but a header.
          expect(result.exitCode, `${args.join(' ')} ${format}`).toBe(0);
          continue;
        }
        expect(result.exitCode, `${args.join(' ')} ${format}`).toBe(2);
        expect(result.stdout).toBe('');
        expect(result.stderr).toMatch(/^error: unknown field in --fields: "custmer\.firstName"\nhint: known fields: .*customer\.firstName/);
      }
    }
  });
});

describe('output options of a write are checked before it is sent', () => {
  const cardCount = async () => JSON.parse((await run(['cards', 'list', '--all', '-o', 'json'])).stdout).length as number;

  it('cards create -o json with an unknown --fields, a bad --jq or --template: exit 2 and no card created (a retry makes no second card)', async () => {
    const before = await cardCount();
    for (const bad of [['--fields', 'nope'], ['--jq', '.[] |'], ['--template', '{{#if .id}}']]) {
      const result = await run([...createFlags('Ada', 'Obi'), '-o', 'json', ...bad], '4821\n');
      expect(result.exitCode, bad.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
    }
    expect(await cardCount()).toBe(before);
    // A field of a card that this answer happens to lack is not a usage error after the write.
    const made = await run([...createFlags('Ada', 'Obi'), '-o', 'json', '--fields', 'id,customer.middleName,cardProgram.name'], '4821\n');
    expect(made.exitCode, made.stderr).toBe(0);
    expect(JSON.parse(made.stdout).id).toBeTruthy();
    expect(await cardCount()).toBe(before + 1);
  });

  it("simulate -o csv --fields outcome,amount: the computed columns, as in the table", async () => {
    const card = JSON.parse((await run([...createFlags('Ada', 'Obi'), '-o', 'json'], '4821\n')).stdout).id as string;
    await run(['cards', 'activate', card]);
    const csv = await run(['simulate', 'authorization', '--card', card, '--amount', '12.50', '-o', 'csv', '--fields', 'outcome,amount,responseCode']);
    expect(csv.exitCode, csv.stderr).toBe(0);
    expect(csv.stdout).toMatch(/^outcome,amount,responseCode\n(approved|declined),12\.50,\d\d\n$/);
    const json = await run(['simulate', 'authorization', '--card', card, '--amount', '12.50', '-o', 'json', '--fields', 'outcome,amount']);
    expect(JSON.parse(json.stdout)).toEqual({ outcome: expect.stringMatching(/^(approved|declined)$/), amount: '12.50' });
    const bad = await run(['simulate', 'authorization', '--card', card, '--amount', '12.50', '-o', 'csv', '--fields', 'outcom']);
    expect(bad.exitCode).toBe(2);
  });
});

describe('the name on the card', () => {
  it('cut to 26 characters from long names: said on stderr, in the dry run too; a name that fits says nothing', async () => {
    const flags = createFlags('Oluwaseyi Adebayo', 'Ogunleye-Babatunde').filter((flag, i, all) => flag !== '--embossing-name' && all[i - 1] !== '--embossing-name');
    const dry = await run([...flags, '--dry-run', '-o', 'json'], '4821\n');
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stderr).toContain('warning: the name on the card is cut to 26 characters: "OLUWASEYI ADEBAYO OGUNLEYE" (from "OLUWASEYI ADEBAYO OGUNLEYE-BABATUNDE"); give --embossing-name to choose it');
    expect(JSON.parse(dry.stdout).body.embossingName).toBe('OLUWASEYI ADEBAYO OGUNLEYE');
    const short = await run([...createFlags('Ada', 'Obi').filter((flag, i, all) => flag !== '--embossing-name' && all[i - 1] !== '--embossing-name'), '--dry-run', '-o', 'json'], '4821\n');
    expect(short.stderr).not.toContain('cut to 26');
  });
});

describe('cards create -q', () => {
  it('prints the id and nothing else on success', async () => {
    const created = await run([...createFlags('Ada', 'Obi'), '-q'], '4821\n');
    expect(created.exitCode, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^[0-9a-f]{24}\n$/);
    expect(created.stderr).toBe('');
  });

  it('still says the reference to retry with when the create fails', async () => {
    await setFaults({ rate: 1, codes: [503], methods: ['POST'] });
    try {
      const failed = await run([...createFlags('Ada', 'Obi'), '-q', '--no-retry'], '4821\n');
      expect(failed.exitCode).toBe(7);
      expect(failed.stdout).toBe('');
      expect(failed.stderr).toMatch(/cardctl-\d{8}-[0-9a-f]{8}[^\n]*--reference|--reference cardctl-\d{8}-[0-9a-f]{8}/);
    } finally {
      await setFaults({});
    }
  });
});

describe('--jq that never ends', () => {
  it("a reader that goes away (`| head -1`) ends cardctl at once with exit 0", async () => {
    const child = spawnCardctl(['cards', 'list', '--jq', 'repeat(1)']);
    expect(await firstLine(child.stdout!)).toBe('1\n');
    // What head does after its first line: close its end of the pipe.
    child.stdout!.destroy();
    const result = await child;
    expect(result.exitCode, result.stderr as string).toBe(0);
    expect(result.stderr).toBe('');
  }, 30_000);

  it('Ctrl-C while it streams exits 130 with one line on stderr', async () => {
    const child = spawnCardctl(['cards', 'list', '--jq', 'repeat(1)']);
    expect(await firstLine(child.stdout!)).toBe('1\n');
    child.stdout!.resume();
    child.kill('SIGINT');
    const result = await child;
    expect(result.exitCode).toBe(130);
    expect(result.stderr).toBe('error: interrupted');
  }, 30_000);

  it('Ctrl-C while the filter is held back by a reader that stopped reading exits 130 too', async () => {
    const child = spawnCardctl(['cards', 'list', '--jq', 'repeat("x" * 1000)']);
    expect(await firstLine(child.stdout!)).toBe(`${'x'.repeat(1000)}\n`);
    child.stdout!.pause();
    // Long enough for the pipe and the 1 MB the worker may be ahead to fill: jq then waits.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    child.kill('SIGINT');
    // The reader takes what was written before Ctrl-C (a stalled reader is waited for, not dropped).
    child.stdout!.resume();
    const result = await child;
    expect(result.exitCode).toBe(130);
    expect(result.stderr).toBe('error: interrupted');
  }, 30_000);

  it('an error in the filter is one line and exit 2', async () => {
    for (const expression of ['.[', 'error("boom")', '.[] | .id | keys']) {
      const result = await run(['cards', 'list', '--jq', expression]);
      expect(result.exitCode, expression).toBe(2);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^error: --jq: jq: /);
      expect(lines.slice(1).every((line) => line.startsWith('hint: '))).toBe(true);
    }
  });
});
