// The ingress rule against a real browser (the system's Chromium, headless, as in
// inspector.test.ts): a page whose name resolves to 127.0.0.1 (DNS rebinding, played by a
// host-resolver rule) and a page of another origin on this machine each try the sandbox's
// helpers. Every attempt is refused before a route runs, and nothing changes.
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { call, type ClockAnswer, type WebhookFaultState } from '../sandbox/helpers.js';

const CHROMIUM = process.env.CARDCTL_TEST_CHROMIUM ?? '/usr/bin/chromium';
const NO_BROWSER = existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium; CARDCTL_TEST_CHROMIUM names another)`;
const REBOUND = 'rebind.attacker.example';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  `--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`];

describe.skipIf(NO_BROWSER !== undefined)(`web pages against the sandbox${NO_BROWSER ? ` (skipped: ${NO_BROWSER})` : ''}`, () => {
  let browser: Browser;
  let sandbox: RunningSandbox;
  let attacker: Server;
  let attackerOrigin: string;
  const log: string[] = [];
  const institutions = () => (sandbox.deps.store.db.prepare('SELECT count(*) AS n FROM institutions').get() as { n: number }).n;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    sandbox = await startSandbox({ port: 0, memory: true, log: (line) => log.push(line) });
    attacker = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>a page</title>'));
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerOrigin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await sandbox?.close();
    await new Promise<void>((resolve) => attacker?.close(() => resolve()));
  });

  it('a page under a name rebound to 127.0.0.1 is refused, the inspector and institutions included', async () => {
    const before = institutions();
    const page = await browser.newPage();
    try {
      const port = new URL(sandbox.baseUrl).port;
      const token = new URL(sandbox.inspectorUrl).searchParams.get('token');
      const opened = await page.goto(`http://${REBOUND}:${port}/sandbox/inspector?token=${token}`);
      expect(opened?.status()).toBe(403);
      // Same origin now, as far as the browser knows: no preflight, and still refused.
      const answers = await page.evaluate(async () => Promise.all([
        fetch('/sandbox/institutions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.status),
        fetch('/sandbox/pin-key').then((r) => r.status),
        fetch('/openapi.json').then((r) => r.status),
      ]));
      expect(answers).toEqual([403, 403, 403]);
    } finally {
      await page.close();
    }
    expect(institutions()).toBe(before);
  });

  it('a page of another origin on this machine cannot deliver advices, move the clock or install faults', async () => {
    const clock = (await call<ClockAnswer>(sandbox, 'GET', '/sandbox/switch/clock')).body.offsetSeconds;
    const faults = (await call<WebhookFaultState>(sandbox, 'GET', '/sandbox/webhook-faults')).body.spec;
    const page = await browser.newPage();
    try {
      await page.goto(`${attackerOrigin}/`);
      log.length = 0;
      // Simple requests (no preflight): the browser sends them, and hides only the answers.
      await page.evaluate(async (base) => {
        const simple = (path: string, init: RequestInit) => fetch(`${base}${path}`, { mode: 'no-cors', ...init }).catch(() => undefined);
        await simple('/sandbox/switch/advices/deliver', { method: 'POST' });
        await simple('/sandbox/switch/clock', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'advanceSeconds=86400' });
        await simple('/sandbox/institutions', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' });
      }, sandbox.baseUrl);
      await expect.poll(() => log.filter((line) => line.startsWith('POST /sandbox/')).length).toBe(3);
      for (const line of log.filter((entry) => entry.startsWith('POST /sandbox/'))) expect(line).toMatch(/^POST \/sandbox\/\S+ 403 /);
    } finally {
      await page.close();
    }
    expect((await call<ClockAnswer>(sandbox, 'GET', '/sandbox/switch/clock')).body.offsetSeconds).toBe(clock);
    expect((await call<WebhookFaultState>(sandbox, 'GET', '/sandbox/webhook-faults')).body.spec).toBe(faults);
  });
});
