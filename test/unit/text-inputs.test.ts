// Every text input of the CLI other than the import file: a file that is not UTF-8 is a usage
// error naming the line (never U+FFFD sent on), a UTF-8 BOM is fine, a FIFO (`<(…)`) is read
// like a file, a directory is refused clearly, and stdin is bounded and strict too.
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPrivateKey } from '../../src/api/client-credentials.js';
import apiCommand, { parseApiCall } from '../../src/commands/api.js';
import { readBodyFile } from '../../src/commands/oauth/body-file.js';
import oauthCreate, { parseCreateOptions as parseOAuthCreate } from '../../src/commands/oauth/create.js';
import simulateRun from '../../src/commands/simulate/run.js';
import webhookListen from '../../src/commands/webhook/listen.js';
import { readPinKeyFile } from '../../src/config/pin-key.js';
import { UsageError } from '../../src/core/errors.js';
import { lineReader, readAll } from '../../src/core/io.js';
import { readTextFile } from '../../src/core/text.js';
import { testContext as baseContext } from '../helpers/context.js';
import { optionsOf, runCommand } from '../helpers/parse.js';
import { createInput } from '../helpers/cards-create.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-text-inputs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const testContext = (options: { stdin?: string } = {}) => baseContext({ ...options, configDir: dir });
/** What `cards create --from-file FILE` makes of the file before anything is sent. */
const createFromFile = async (file: string) => createInput(testContext(), ['--from-file', file]);

/** Line 1 fine, line 2 has a Latin-1 é (0xE9), which is not UTF-8. */
function latin1File(name: string, line1: string, line2: string): string {
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat([Buffer.from(`${line1}\n`), Buffer.from(line2, 'latin1')]));
  return path;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(() => undefined, (e) => e);
  expect(error).toBeInstanceOf(UsageError);
  return error as Error;
}

/** `api METHOD PATH --data VALUE` as its run() reads it, before anything is sent. */
const apiData = async (data: string) => parseApiCall(testContext(), 'POST', '/x', await optionsOf(apiCommand, ['POST', '/x', '--data', data]));

describe('a file that is not UTF-8 is a usage error naming the flag and the line', () => {
  const cases: Array<[string, (path: string) => Promise<unknown>]> = [
    ['cards create --from-file', (p) => createFromFile(p)],
    ['oauth create / users update --from-file', (p) => readBodyFile(testContext(), p)],
    ['oauth create --public-key', async (p) => parseOAuthCreate(testContext(), await optionsOf(oauthCreate, ['--public-key', p, '--name', 'x']))],
    ['api --data @file', (p) => apiData(`@${p}`)],
    ['simulate run SCENARIO', (p) => runCommand(simulateRun, testContext(), [p])],
    ['webhook listen --rules', (p) => runCommand(webhookListen, testContext(), ['--rules', p, '--port', '0', '--respond', '00'])],
    ['--pin-key', (p) => readPinKeyFile(p)],
    ['--private-key (oauth JWT login)', (p) => loadPrivateKey(p)],
  ];
  it.each(cases)('%s', async (_name, read) => {
    const path = latin1File(`bad-${_name.replace(/\W+/g, '-')}.txt`, '{', '"firstName": "Adé"}');
    const error = await rejection(read(path));
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/not valid UTF-8 \(line 2\)/);
    expect(error.message).not.toContain('\uFFFD');
  });

  it('a UTF-8 BOM is accepted', async () => {
    const path = join(dir, 'bom.json');
    writeFileSync(path, `\uFEFF${JSON.stringify({ cardProgram: 'P', customer: { firstName: 'Adé' } })}`);
    const { body } = await createFromFile(path);
    expect(body).toMatchObject({ cardProgram: 'P', customer: { firstName: 'Adé' } });
  });

  it('a directory is refused with its name and why', async () => {
    const sub = join(dir, 'a-directory');
    mkdirSync(sub, { recursive: true });
    expect((await rejection(createFromFile(sub))).message).toMatch(/EISDIR/);
    expect((await rejection(readBodyFile(testContext(), sub))).message).toMatch(/EISDIR/);
  });
});

describe('FIFOs (<(…)) are read like files', () => {
  function fifo(name: string, content: string): string {
    const path = join(dir, name);
    execFileSync('mkfifo', [path]);
    // Opening a FIFO for writing waits for the reader; the write happens once the test reads.
    createWriteStream(path).end(content);
    return path;
  }

  it('cards create --from-file, users/oauth --from-file, api --data @', async () => {
    const { body } = await createFromFile(fifo('card.fifo', JSON.stringify({ cardProgram: 'P' })));
    expect(body.cardProgram).toBe('P');
    expect(await readBodyFile(testContext(), fifo('body.fifo', '{"firstName":"Ada"}'))).toEqual({ firstName: 'Ada' });
    expect((await apiData(`@${fifo('data.fifo', '{"a":1}')}`)).body).toEqual({ a: 1 });
    expect(await readTextFile(fifo('text.fifo', 'é'))).toBe('é');
  });
});

describe('stdin: strict UTF-8 and bounded', () => {
  it('readAll (--from-file -, --data -, --token-stdin, scenario -) refuses bad bytes and endless input', async () => {
    const { Readable } = await import('node:stream');
    await expect(readAll(Readable.from([Buffer.from([0x7b, 0x0a, 0xe9, 0x7d])]))).rejects.toThrow(new UsageError('stdin: not valid UTF-8 (line 2)'));
    let pulled = 0;
    const endless = Readable.from((function* () { for (;;) { pulled += 65536; yield Buffer.alloc(65536, 0x20); } })());
    const error = await readAll(endless).then(() => undefined, (e) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toBe('stdin: larger than 16 MiB');
    expect(pulled).toBeLessThan(17 * 1024 * 1024 + 65536 * 2);
  });

  it('lineReader (--pin-stdin, --secret-stdin) refuses bad bytes and an endless line', async () => {
    const { Readable } = await import('node:stream');
    const reader = lineReader(Readable.from([Buffer.from('4821\n'), Buffer.from([0x31, 0xe9, 0x0a])]));
    expect(await reader.next()).toBe('4821');
    await expect(reader.next()).rejects.toThrow(new UsageError('stdin: not valid UTF-8 (line 2)'));
    let pulled = 0;
    const zeros = Readable.from((function* () { for (;;) { pulled += 65536; yield Buffer.alloc(65536, 0x30); } })());
    await expect(lineReader(zeros).next()).rejects.toThrow(/stdin: line 1 is longer than 65,536 characters/);
    expect(pulled).toBeLessThan(4 * 65536);
  });
});
