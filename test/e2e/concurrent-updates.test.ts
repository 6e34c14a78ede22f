// Two `cards customer update` at once on the same card: each reads the card and writes back the
// whole customer. A proxy in front of the sandbox holds the reads until both have been made, so
// both commands work from the same version every time: one applies, the other exits 5 with a
// hint to run again, and no change is ever lost silently. Parallel changes of the config file
// lose nothing either. Run `npm run build` first.
import { existsSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardctl, startSandboxProcess, tempDir, type RunningSandbox } from '../helpers/cli.js';
import { call, createCardOverHttp, type ListDataEnvelope } from '../sandbox/helpers.js';
import type { Card } from '../../src/api/schemas.js';
import { present } from '../helpers/json.js';

let sandbox: RunningSandbox;
let config: { path: string; remove(): void };
let proxy: Server;
let proxyUrl = '';
/** Reads of Get Cards held until this many have arrived (then every request passes). */
let barrier = 0;
let held: Array<() => void> = [];

beforeAll(async () => {
  config = tempDir('cardctl-e2e-concurrent-');
  sandbox = await startSandboxProcess();
  proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method === 'GET' && req.url?.startsWith('/institutions/cards?') && barrier > 0) {
      await new Promise<void>((resolve) => {
        held.push(resolve);
        if (held.length >= barrier) {
          barrier = 0;
          for (const release of held.splice(0)) release();
        }
      });
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name))) as Record<string, string>;
    const answer = await request(`${sandbox.info.baseUrl}${req.url}`, { method: req.method as 'GET', headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
    const body = Buffer.from(await answer.body.arrayBuffer());
    res.writeHead(answer.statusCode, { 'content-type': String(answer.headers['content-type'] ?? 'application/json') }).end(body);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 30_000);

afterAll(async () => {
  await new Promise<void>((resolve) => proxy?.close(() => resolve()));
  await sandbox?.stop();
  config?.remove();
});

function update(cardId: string, flags: string[], baseUrl = proxyUrl) {
  return cardctl(['cards', 'customer', 'update', cardId, ...flags], {
    configDir: config.path, env: { CARDCTL_BASE_URL: baseUrl, CARDCTL_TOKEN: sandbox.info.token },
  });
}

async function customerOf(cardId: string) {
  const response = await call<ListDataEnvelope<Card>>(sandbox.info, 'GET', `/institutions/cards?cardId=${cardId}`, { token: sandbox.info.token });
  return present(response.body.data[0], 'the card').customer;
}

describe('cards customer update, twice at once', () => {
  it('one applies, the other exits 5 with a hint and changes nothing; run again, both changes are kept', async () => {
    const cardId = await createCardOverHttp(sandbox.info);
    const before = await customerOf(cardId);
    const email = ['--email', 'parallel@example.com'];
    const phone = ['--phone', '+2348099999999'];
    barrier = 2;
    const [byEmail, byPhone] = await Promise.all([update(cardId, email), update(cardId, phone)]);
    expect([byEmail.exitCode, byPhone.exitCode].sort(), `${byEmail.stderr}\n${byPhone.stderr}`).toEqual([0, 5]);
    const [winner, loser, loserFlags] = byEmail.exitCode === 0 ? [byEmail, byPhone, phone] : [byPhone, byEmail, email];
    expect(winner.stderr).toContain('✓');
    expect(loser.stderr).toMatch(/changed by someone else after it was read/);
    expect(loser.stderr).toMatch(/run the same command again/);
    expect(loser.stderr).not.toMatch(/\n\s+at /);

    const between = await customerOf(cardId);
    if (loser === byPhone) {
      expect(between).toMatchObject({ emailAddress: 'parallel@example.com', phoneNumber: before.phoneNumber });
    } else {
      expect(between).toMatchObject({ emailAddress: before.emailAddress, phoneNumber: '+2348099999999' });
    }

    const again = await update(cardId, loserFlags);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(await customerOf(cardId)).toMatchObject({ emailAddress: 'parallel@example.com', phoneNumber: '+2348099999999' });
  }, 60_000);
});

describe('the config file, changed by several cardctl at once', () => {
  it('ten parallel `alias set` keep all ten aliases', async () => {
    const dir = tempDir('cardctl-e2e-config-lock-');
    try {
      const names = Array.from({ length: 10 }, (_, i) => `a${i}`);
      const runs = await Promise.all(names.map((name) => cardctl(['alias', 'set', name, `cards get ${name}`], { configDir: dir.path })));
      for (const run of runs) expect(run.exitCode, run.stderr).toBe(0);
      const listed = await cardctl(['alias', 'list', '-o', 'json'], { configDir: dir.path });
      const aliases = (JSON.parse(listed.stdout) as Array<{ name: string }>).map((a) => a.name).sort();
      expect(aliases).toEqual(names);
      expect(readdirSync(dir.path).filter((f) => f.endsWith('.lock'))).toEqual([]);
    } finally {
      dir.remove();
    }
  }, 60_000);

  it.each(['constructor', 'toString', '__proto__', 'prototype', 'hasOwnProperty', 'colour'])('`profile set %s x` is a usage error that writes nothing', async (key) => {
    const dir = tempDir('cardctl-e2e-config-keys-');
    try {
      const result = await cardctl(['profile', 'set', key, 'x'], { configDir: dir.path });
      expect(result.exitCode, result.stderr).toBe(2);
      expect(result.stderr).toContain(`unknown setting "${key}"`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(existsSync(join(dir.path, 'config.json'))).toBe(false);
    } finally {
      dir.remove();
    }
  });
});
