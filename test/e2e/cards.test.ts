// Every `cards` verb end to end: the built bin/cardctl.js against `cardctl sandbox serve` on port
// 0, with a throwaway config directory. Run `npm run build` first.
import { execa } from 'execa';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cardctl, cleanEnv, startSandboxProcess, tempDir, type RunningSandbox, type SandboxInfo, isolatedDirs } from '../helpers/cli.js';
import { encryptPinBlock, loadPinKey } from '../../src/pin/encrypt.js';
import type { Card } from '../../src/api/schemas.js';

let sandbox: RunningSandbox;
let config: { path: string; remove(): void };
/** Every PIN any test sends: none may ever appear in a spawned command line. */
const PINS = new Set<string>();

/**
 * The command line as `ps` shows it, without the record identifiers it carries: ids are random
 * hex and may contain any 4 digits by chance, which is not a PIN leak.
 */
function withoutIds(argv: string[]): string {
  return argv.filter((arg) => !/^[0-9a-f]{24}$/.test(arg)).join(' ');
}
const spawnedArgs: string[][] = [];

function env(info: SandboxInfo = sandbox.info): Record<string, string> {
  return { CARDCTL_BASE_URL: info.baseUrl, CARDCTL_TOKEN: info.token };
}

async function run(args: string[], options: { input?: string; env?: Record<string, string>; pins?: string[] } = {}) {
  for (const pin of options.pins ?? []) PINS.add(pin);
  spawnedArgs.push(args);
  return cardctl(args, { configDir: config.path, input: options.input, env: { ...env(), ...options.env } });
}

const json = (text: string) => JSON.parse(text);

function cardFlags(extra: string[] = []): string[] {
  return [
    'cards', 'create', '--program', sandbox.info.cardProgramId, '--first-name', 'Ada', '--last-name', 'Obi',
    '--email', 'ada@example.com', '--phone', '+2348012345678', '--birth-date', '1990-05-17', '--city', 'Lagos',
    '--account-number', '0123456789', '--account-type', 'savings', '--pin-stdin', ...extra,
  ];
}

async function createCard(pin = '4821', extra: string[] = []): Promise<Card> {
  const result = await run([...cardFlags(extra), '-o', 'json'], { input: `${pin}\n`, pins: [pin] });
  expect(result.stderr).toContain('✓');
  expect(result.exitCode).toBe(0);
  return json(result.stdout);
}

beforeAll(async () => {
  config = tempDir('cardctl-e2e-cards-');
  sandbox = await startSandboxProcess();
}, 30_000);

afterAll(async () => {
  await sandbox?.stop();
  config?.remove();
  // No PIN in any argv we spawned.
  for (const args of spawnedArgs) for (const pin of PINS) expect(withoutIds(args)).not.toContain(pin);
});

describe('cards create', () => {
  it('issues a card from flags with the PIN on stdin: key/value table and JSON', async () => {
    const table = await run(cardFlags(), { input: '4821\n', pins: ['4821'] });
    expect(table.exitCode).toBe(0);
    const rows = Object.fromEntries(table.stdout.trim().split('\n').map((line) => line.split('\t')));
    expect(rows.id).toMatch(/^[0-9a-f]{24}$/);
    expect(rows.embossingName).toBe('ADA OBI');
    expect(rows.status).toBe('active');
    expect(rows.pan).toMatch(/^\d{6}\*+\d{4}$/);
    expect(rows['customer.emailAddress']).toBe('ada@example.com');
    expect(rows['account.currency']).toBe('566');
    expect(table.stderr).toMatch(/^reference: cardctl-\d{8}-[0-9a-f]{8}, reuse it with --reference to retry safely$/m);
    expect(table.stderr).toMatch(/✓ Card \d{6}\*+\d{4} \(ADA OBI\) created/);

    const card = await createCard('7305', ['--embossing-name', 'A OBI', '--currency', 'USD', '--reference', 'e2e-ref-1']);
    expect(card).toMatchObject({ embossingName: 'A OBI', referenceCode: 'e2e-ref-1', account: { currency: '840', type: 'savings' }, pinEnabled: true });
    expect(card.customer.dateOfBirth).toBe('1990-05-17T00:00:00.000Z');
  });

  it('takes --from-file, flags winning, and -q prints only the id', async () => {
    const file = join(config.path, 'card.json');
    writeFileSync(file, JSON.stringify({
      cardProgram: sandbox.info.cardProgramId, embossingName: 'FROM FILE',
      customer: { firstName: 'File', lastName: 'Person', emailAddress: 'file@example.com', phoneNumber: '+2348000000001' },
      account: { number: '99', type: 'current', bankCode: '058', currency: '566' },
    }));
    const quiet = await run(['cards', 'create', '--from-file', file, '--embossing-name', 'FLAG WINS', '--pin-stdin', '-q'], { input: '9024\n', pins: ['9024'] });
    expect(quiet.exitCode).toBe(0);
    const id = quiet.stdout.trim();
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    const got = json((await run(['cards', 'get', id, '-o', 'json'])).stdout);
    expect(got).toMatchObject({ embossingName: 'FLAG WINS', customer: { firstName: 'File' }, account: { type: 'current', bankCode: '058' } });
  });

  it('--no-pin needs no PIN; --pan brings a Luhn-valid number from the program range', async () => {
    const noPin = await run([...cardFlags().filter((a) => a !== '--pin-stdin'), '--no-pin', '-o', 'json', '--fields', 'id,pinEnabled']);
    expect(noPin.exitCode).toBe(0);
    expect(json(noPin.stdout)).toMatchObject({ pinEnabled: false });
    const pan = await run([...cardFlags(['--pan', '5060990000000123']), '-o', 'json'], { input: '4821\n' });
    expect(pan.exitCode).toBe(0);
    expect(json(pan.stdout)).toMatchObject({ pan: '506099******0123', lastFour: '0123' });
    expect(pan.stdout).not.toContain('5060990000000123');
  });

  it('exit 2 for bad input, nothing sent', async () => {
    const badEmail = await run([...cardFlags(['--email', 'ada@']), '-o', 'json'], { input: '4821\n' });
    expect(badEmail.exitCode).toBe(2);
    expect(badEmail.stderr).toContain('--email');
    expect(json(badEmail.stderr.split('\n').find((l) => l.startsWith('{'))!).error).toMatchObject({ code: 'USAGE', exitCode: 2 });

    const badPan = await run(cardFlags(['--pan', '5060990000000009']), { input: '4821\n' });
    expect(badPan.exitCode).toBe(2);
    expect(badPan.stderr).toMatch(/Luhn/);

    const missing = await run(['cards', 'create', '--first-name', 'Ada', '--pin-stdin'], { input: '4821\n' });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/missing --program, --last-name, --email, --phone, --account-number, --account-type/);

    const weak = await run(cardFlags(), { input: '7777\n', pins: ['7777'] });
    expect(weak.exitCode).toBe(2);
    expect(weak.stderr).toMatch(/too easy to guess/);
    expect(weak.stderr).toContain('--allow-weak-pin');
    expect(weak.stderr).not.toContain('7777');

    const short = await run(cardFlags(), { input: '482\n', pins: ['482'] });
    expect(short.exitCode).toBe(2);
    expect(short.stderr).toMatch(/4 to 12 digits/);

    const noPin = await run(cardFlags().filter((a) => a !== '--pin-stdin'));
    expect(noPin.exitCode).toBe(2);
    expect(noPin.stderr).toContain('--pin-stdin');

    for (const code of ['998', '999', 'XTS']) {
      const currency = await run(cardFlags(['--currency', code]), { input: '4821\n' });
      expect(currency.exitCode).toBe(2);
      expect(currency.stderr).toContain('--currency');
    }
  });

  it('exit 3 for a bad token, 4 for an unknown program, 5 for a repeated reference', async () => {
    const bad = await run(cardFlags(), { input: '4821\n', env: { CARDCTL_TOKEN: 'sbx_tok_wrong' } });
    expect(bad.exitCode).toBe(3);
    const unknown = await run(cardFlags(['--program', 'ffffffffffffffffffffffff']), { input: '4821\n' });
    expect(unknown.exitCode).toBe(4);
    await createCard('4821', ['--reference', 'e2e-dup']);
    const dup = await run(cardFlags(['--reference', 'e2e-dup']), { input: '4821\n' });
    expect(dup.exitCode).toBe(5);
    expect(dup.stderr).toMatch(/hint: .*e2e-dup/);
  });
});

describe('cards list and get', () => {
  it('lists as tab-separated rows, JSON, NDJSON, CSV and ids', async () => {
    const created = await createCard('5190', ['--embossing-name', 'LIST ME']);
    const table = await run(['cards', 'list']);
    expect(table.exitCode).toBe(0);
    const row = table.stdout.split('\n').find((line) => line.startsWith(created.id))!.split('\t');
    expect(row).toEqual([created.id, created.lastFour, 'LIST ME', 'active', expect.stringMatching(/^\d{2}\/\d{4}$/), 'Sandbox Virtual Debit', created.createdAt]);

    const list = json((await run(['cards', 'list', '--json', '--limit', '100'])).stdout);
    expect(list.map((c: Card) => c.id)).toContain(created.id);
    const ndjson = (await run(['cards', 'list', '-o', 'ndjson', '--fields', 'id,status'])).stdout.trim().split('\n').map(json);
    expect(ndjson[0]).toEqual({ id: created.id, status: 'active' });
    const csv = (await run(['cards', 'list', '-o', 'csv', '--wide'])).stdout.trim().split('\n');
    expect(csv[0]).toBe('id,lastFour,embossingName,status,expiry,cardProgram.name,createdAt,pan,scheme,type,customer.name,customer.emailAddress,account.number,referenceCode,updatedAt');
    expect(csv[1]).toContain(`${created.id},${created.lastFour},LIST ME,active`);
    const quiet = (await run(['cards', 'list', '-q', '--search', 'LIST ME'])).stdout.trim().split('\n');
    expect(quiet).toEqual([created.id]);
    const byId = json((await run(['cards', 'list', '--card-id', created.id, '-o', 'json'])).stdout);
    expect(byId.map((c: Card) => c.id)).toEqual([created.id]);
    const raw = (await run(['cards', 'list', '-o', 'raw', '--limit', '1'])).stdout;
    expect(json(raw)).toMatchObject({ statusCode: 200, data: [expect.objectContaining({ id: created.id })] });

    const tooMany = await run(['cards', 'list', '--limit', '101']);
    expect(tooMany.exitCode).toBe(2);
    expect((await run(['cards', 'list'], { env: { CARDCTL_TOKEN: 'nope' } })).exitCode).toBe(3);
  });

  it('gets one card as key/value rows and JSON; unknown ids exit 4', async () => {
    const created = await createCard('6027');
    const table = await run(['cards', 'get', created.id]);
    expect(table.exitCode).toBe(0);
    expect(table.stdout).toContain(`id\t${created.id}\n`);
    expect(table.stdout).toContain('customer.name\tAda Obi\n');
    expect(table.stdout).toContain('account.number\t0123456789\n');
    const got = json((await run(['cards', 'get', created.id, '-o', 'json', '--fields', 'id,status,customer.emailAddress'])).stdout);
    expect(got).toEqual({ id: created.id, status: 'active', customer: { emailAddress: 'ada@example.com' } });
    const missing = await run(['cards', 'get', 'ffffffffffffffffffffffff']);
    expect(missing.exitCode).toBe(4);
    expect(missing.stderr).toMatch(/^error: card ffffffffffffffffffffffff not found/m);
    expect((await run(['cards', 'get', created.id], { env: { CARDCTL_TOKEN: 'nope' } })).exitCode).toBe(3);
  });
});

describe('cards renew', () => {
  it('renews with a future month; rejects past (2), too far (5), unknown (4)', async () => {
    const created = await createCard('3816');
    const year = new Date().getUTCFullYear() + 2;
    const renewed = await run(['cards', 'renew', created.id, '--expiration', `${year}06`, '-o', 'json']);
    expect(renewed.exitCode).toBe(0);
    expect(json(renewed.stdout)).toMatchObject({ id: created.id, expiryMonth: '06', expiryYear: year, status: 'active' });
    expect(renewed.stderr).toMatch(/✓ .*renewed until 06\/\d{4}/);
    const table = await run(['cards', 'renew', created.id, '--expiration', `${year}07`, '--reason', 'REPLACE']);
    expect(table.stdout).toContain(`expiry\t07/${year}`);
    expect((await run(['cards', 'renew', created.id, '--expiration', '202001'])).exitCode).toBe(2);
    expect((await run(['cards', 'renew', created.id, '--expiration', '209912'])).exitCode).toBe(5);
    expect((await run(['cards', 'renew', created.id])).stderr).toContain('--expiration');
    expect((await run(['cards', 'renew', 'ffffffffffffffffffffffff', '--expiration', `${year}06`])).exitCode).toBe(4);
  });
});

describe('cards pin', () => {
  it('change checks the old PIN in the sandbox; 3 wrong lock it; reset unlocks', async () => {
    const card = await createCard('4821');
    const ok = await run(['cards', 'pin', 'change', card.id, '--pin-stdin', '-o', 'json'], { input: '4821\n7305\n', pins: ['4821', '7305'] });
    expect(ok.exitCode).toBe(0);
    expect(json(ok.stdout)).toMatchObject({ id: card.id, pinAttempts: 0 });
    expect(ok.stderr).toMatch(/✓ PIN changed/);

    // The old PIN is no longer right: the sandbox really verified the change.
    const wrong = await run(['cards', 'pin', 'change', card.id, '--pin-stdin'], { input: '4821\n9024\n', pins: ['9024'] });
    expect(wrong.exitCode).toBe(5);
    expect(wrong.stderr).toMatch(/error: the current PIN is wrong: 2 attempts left/);
    for (const pin of ['4821', '9024', '7305']) expect(wrong.stderr).not.toContain(pin);
    const wrongJson = await run(['cards', 'pin', 'change', card.id, '--pin-stdin', '-o', 'json'], { input: '4821\n9024\n' });
    expect(wrongJson.exitCode).toBe(5);
    expect(json(wrongJson.stderr.split('\n').find((l) => l.startsWith('{'))!).error).toMatchObject({ code: 'PIN_MISMATCH', exitCode: 5, status: 422 });
    expect((await run(['cards', 'pin', 'change', card.id, '--pin-stdin'], { input: '4821\n9024\n' })).stderr).toMatch(/0 attempts left/);
    const locked = await run(['cards', 'pin', 'change', card.id, '--pin-stdin'], { input: '7305\n9024\n' });
    expect(locked.exitCode).toBe(5);
    expect(locked.stderr).toMatch(/locked/);
    expect(locked.stderr).toContain(`hint: set a new PIN with \`cardctl cards pin reset ${card.id}\``);

    const reset = await run(['cards', 'pin', 'reset', card.id, '--pin-stdin', '-o', 'json'], { input: '2961\n', pins: ['2961'] });
    expect(reset.exitCode).toBe(0);
    expect(json(reset.stdout)).toMatchObject({ id: card.id, pinAttempts: 0 });
    const after = await run(['cards', 'pin', 'change', card.id, '--pin-stdin', '-q'], { input: '2961\n5830\n', pins: ['5830'] });
    expect(after.exitCode).toBe(0);
    expect(after.stdout.trim()).toBe(card.id);
  });

  it('bad PIN input exits 2 before anything is sent; unknown card 4; bad token 3', async () => {
    const card = await createCard('4821');
    const weak = await run(['cards', 'pin', 'reset', card.id, '--pin-stdin'], { input: '9999\n', pins: ['9999'] });
    expect(weak.exitCode).toBe(2);
    expect(weak.stderr).toContain('--allow-weak-pin');
    expect((await run(['cards', 'pin', 'reset', card.id, '--pin-stdin', '--allow-weak-pin', '-q'], { input: '9999\n' })).exitCode).toBe(0);
    expect((await run(['cards', 'pin', 'change', card.id, '--pin-stdin'], { input: '9999\n' })).stderr).toMatch(/line 2 of stdin/);
    expect((await run(['cards', 'pin', 'change', card.id, '--pin-stdin'], { input: '00a0\n5830\n' })).exitCode).toBe(2);
    const noStdin = await run(['cards', 'pin', 'reset', card.id]);
    expect(noStdin.exitCode).toBe(2);
    expect(noStdin.stderr).toContain('--pin-stdin');
    expect((await run(['cards', 'pin', 'reset', 'ffffffffffffffffffffffff', '--pin-stdin'], { input: '5830\n' })).exitCode).toBe(4);
    expect((await run(['cards', 'pin', 'reset', card.id, '--pin-stdin'], { input: '5830\n', env: { CARDCTL_TOKEN: 'nope' } })).exitCode).toBe(3);
  });

  it('the PIN never appears in the process command line or environment while it runs', async () => {
    const card = await createCard('4821');
    const args = [BIN, 'cards', 'pin', 'change', card.id, '--pin-stdin'];
    const child = execa('node', args, {
      env: cleanEnv({ ...isolatedDirs(config.path), ...env() }),
      extendEnv: false,
      reject: false,
      stdin: 'pipe',
    });
    // Wait until the process is reading stdin, then look at what `ps` would show.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0');
    const environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8');
    child.stdin!.write('4821\n');
    child.stdin!.end('8350\n');
    const result = await child;
    expect(result.exitCode).toBe(0);
    expect(cmdline).toContain('--pin-stdin');
    for (const pin of ['4821', '8350']) {
      expect(cmdline).not.toContain(pin);
      expect(withoutIds(cmdline)).not.toContain(pin);
      expect(environ).not.toContain(pin);
      expect(withoutIds(args)).not.toContain(pin);
    }
  });
});

describe('PIN keys from profiles', () => {
  async function login(dir: string, args: string[]) {
    const result = await cardctl(['login', '--base-url', sandbox.info.baseUrl, '--token-stdin', ...args], { configDir: dir, input: sandbox.info.token });
    expect(result.exitCode).toBe(0);
  }
  const configOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));

  it('a logged-in profile encrypts with its own --pin-key; without one, production says how to get it', async () => {
    const card = await createCard('4821');
    const dir = tempDir('cardctl-e2e-prod-');
    try {
      const pem = ((await (await fetch(`${sandbox.info.baseUrl}/sandbox/pin-key`)).json()) as { publicKey: string }).publicKey;
      writeFileSync(join(dir.path, 'pin.pem'), pem);
      await login(dir.path, ['-p', 'prod', '--env', 'production', '--pin-key', join(dir.path, 'pin.pem')]);
      // A production PIN reset without a terminal needs both confirmations (--yes and --confirm-production).
      const refused = await cardctl(['-p', 'prod', 'cards', 'pin', 'reset', card.id, '--pin-stdin', '--yes'], { configDir: dir.path, input: '5830\n' });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain('--confirm-production');
      const reset = await cardctl(['-p', 'prod', 'cards', 'pin', 'reset', card.id, '--pin-stdin', '--yes', '--confirm-production', '-v', '-q'], { configDir: dir.path, input: '5830\n' });
      expect(reset.exitCode).toBe(0);
      expect(reset.stderr).not.toContain('/sandbox/pin-key');

      await login(dir.path, ['-p', 'nokey', '--env', 'production']);
      const nokey = await cardctl(['-p', 'nokey', 'cards', 'pin', 'reset', card.id, '--pin-stdin'], { configDir: dir.path, input: '5830\n' });
      expect(nokey.exitCode).toBe(2);
      expect(nokey.stderr).toMatch(/has no PIN public key/);
      expect(nokey.stderr).toContain('hint: run `cardctl login --pin-key FILE`');
    } finally {
      dir.remove();
    }
  });

  it('a sandbox profile fetches the key once, caches it, and refetches a stale one', async () => {
    const card = await createCard('4821');
    const dir = tempDir('cardctl-e2e-sbx-');
    try {
      await login(dir.path, ['-p', 'sbx', '--env', 'sandbox']);
      const first = await cardctl(['-p', 'sbx', 'cards', 'pin', 'reset', card.id, '--pin-stdin', '-v', '-q'], { configDir: dir.path, input: '5830\n' });
      expect(first.exitCode).toBe(0);
      expect(first.stderr).toContain('/sandbox/pin-key');
      expect(configOf(dir.path).profiles.sbx).toMatchObject({ pinKeyFingerprint: sandbox.info.pinKeyFingerprint, pinKey: expect.stringContaining('BEGIN PUBLIC KEY') });
      const second = await cardctl(['-p', 'sbx', 'cards', 'pin', 'reset', card.id, '--pin-stdin', '-v', '-q'], { configDir: dir.path, input: '6047\n' });
      expect(second.exitCode).toBe(0);
      expect(second.stderr).not.toContain('/sandbox/pin-key');

      // A key from an earlier sandbox: UNKNOWN_KEY, then the current key is fetched and used.
      const { generateKeyPairSync } = await import('node:crypto');
      const stale = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
      const config = configOf(dir.path);
      config.profiles.sbx.pinKey = stale;
      delete config.profiles.sbx.pinKeyFingerprint;
      writeFileSync(join(dir.path, 'config.json'), JSON.stringify(config));
      const third = await cardctl(['-p', 'sbx', 'cards', 'pin', 'change', card.id, '--pin-stdin', '-v', '-q'], { configDir: dir.path, input: '6047\n7193\n' });
      expect(third.exitCode).toBe(0);
      expect(third.stderr).toMatch(/PUT \S*\/change → 400[\s\S]*\/sandbox\/pin-key[\s\S]*PUT \S*\/change → 200/);
      expect(configOf(dir.path).profiles.sbx.pinKeyFingerprint).toBe(sandbox.info.pinKeyFingerprint);
    } finally {
      dir.remove();
    }
  });
});

describe('cards customer update', () => {
  it('merges the changes into the current record', async () => {
    const card = await createCard('4821');
    const updated = await run(['cards', 'customer', 'update', card.id, '--email', 'ada.obi@example.com', '--postal-code', '100001', '-o', 'json']);
    expect(updated.exitCode).toBe(0);
    expect(json(updated.stdout).customer).toMatchObject({
      firstName: 'Ada', lastName: 'Obi', emailAddress: 'ada.obi@example.com', phoneNumber: '+2348012345678',
      dateOfBirth: '1990-05-17T00:00:00.000Z', address: { city: 'Lagos', postalCode: '100001' },
    });
    expect(updated.stderr).toMatch(/✓ Cardholder .* updated \(emailAddress, address.postalCode\)/);
    const file = join(config.path, 'customer.json');
    writeFileSync(file, JSON.stringify({ lastName: 'Obi-Eze', address: { line1: '1 Marina' } }));
    const table = await run(['cards', 'customer', 'update', card.id, '--from-file', file]);
    expect(table.exitCode).toBe(0);
    expect(table.stdout).toContain('customer.name\tAda Obi-Eze\n');
    expect(table.stdout).toContain('customer.emailAddress\tada.obi@example.com\n');
    expect((await run(['cards', 'customer', 'update', card.id])).exitCode).toBe(2);
    expect((await run(['cards', 'customer', 'update', card.id, '--email', 'nope'])).exitCode).toBe(2);
    expect((await run(['cards', 'customer', 'update', 'ffffffffffffffffffffffff', '--email', 'a@example.com'])).exitCode).toBe(4);
    expect((await run(['cards', 'customer', 'update', card.id, '--email', 'a@example.com'], { env: { CARDCTL_TOKEN: 'nope' } })).exitCode).toBe(3);
  });
});

describe('cards activate and deactivate', () => {
  it('deactivate needs --yes without a terminal; both print the card', async () => {
    const card = await createCard('4821');
    const refused = await run(['cards', 'deactivate', card.id]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(json((await run(['cards', 'get', card.id, '--json'])).stdout).status).toBe('active');

    const off = await run(['cards', 'deactivate', card.id, '--yes', '--reason', 'reported stolen']);
    expect(off.exitCode).toBe(0);
    expect(off.stdout).toContain('status\tsuspended\n');
    expect(off.stderr).toMatch(/✓ Card .*\(ADA OBI\) is suspended/);
    const on = await run(['cards', 'activate', card.id, '-o', 'json']);
    expect(on.exitCode).toBe(0);
    expect(json(on.stdout)).toMatchObject({ id: card.id, status: 'active' });
    expect((await run(['cards', 'activate', card.id, '-q'])).stdout).toBe(`${card.id}\n`);
    expect((await run(['cards', 'activate', 'ffffffffffffffffffffffff'])).exitCode).toBe(4);
    expect((await run(['cards', 'deactivate', 'ffffffffffffffffffffffff', '--yes'])).exitCode).toBe(4);
    expect((await run(['cards', 'activate', card.id], { env: { CARDCTL_TOKEN: 'nope' } })).exitCode).toBe(3);
  });
});

describe('cards list --all', () => {
  it('streams every page: 250 cards, 250 unique ids', async () => {
    // A fresh institution, seeded over HTTP with one PIN block per card.
    const response = await fetch(`${sandbox.info.baseUrl}/sandbox/institutions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(response.status).toBe(201);
    const tenant = ((await response.json()) as { data: { token: string; cardProgramId: string } }).data;
    await seedCards(sandbox.info.baseUrl, tenant, 250);
    const tenantEnv = { CARDCTL_TOKEN: tenant.token };
    const all = await run(['cards', 'list', '--all', '-o', 'ndjson'], { env: tenantEnv });
    expect(all.exitCode).toBe(0);
    const ids = all.stdout.trim().split('\n').map((line) => json(line).id);
    expect(ids).toHaveLength(250);
    expect(new Set(ids).size).toBe(250);
    const small = await run(['cards', 'list', '--all', '--limit', '30', '-q', '-v'], { env: tenantEnv });
    expect(new Set(small.stdout.trim().split('\n')).size).toBe(250);
    expect(small.stderr.match(/GET \S*\/institutions\/cards\?/g)).toHaveLength(9);
    const jsonAll = json((await run(['cards', 'list', '--all', '--json'], { env: tenantEnv })).stdout);
    expect(jsonAll).toHaveLength(250);
    expect((await run(['cards', 'list', '--all', '--page', '2'], { env: tenantEnv })).exitCode).toBe(2);
  }, 60_000);
});

/** Creates `count` cards directly over HTTP, 16 at a time. */
export async function seedCards(baseUrl: string, tenant: { token: string; cardProgramId: string }, count: number): Promise<void> {
  const keyInfo = await (await fetch(`${baseUrl}/sandbox/pin-key`)).json() as { publicKey: string };
  const key = await loadPinKey(keyInfo.publicKey);
  const defaultPIN = await encryptPinBlock('4821', { key });
  const today = new Date();
  const startDate = today.toISOString();
  const expiryDate = new Date(Date.UTC(today.getUTCFullYear() + 3, today.getUTCMonth(), 1)).toISOString();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const res = await fetch(`${baseUrl}/institutions/cards`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          cardProgram: tenant.cardProgramId, referenceCode: `seed-${i}`, pinEnabled: true, defaultPIN,
          account: { currency: '566', bankCode: '058', type: 'savings', number: String(1_000_000 + i) },
          customer: { firstName: 'Seed', lastName: `Holder${i}`, emailAddress: `seed${i}@example.com`, phoneNumber: '+2348000000000' },
          embossingName: `SEED ${i}`, startDate, expiryDate,
        }),
      });
      if (res.status >= 300) throw new Error(`seeding card ${i}: HTTP ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}
