// The live inspector in a real browser: the system's Chromium driven headless by playwright-core
// (which downloads no browser). First the page against an in-process sandbox whose events the
// test emits itself (live rows, an exchange's request and reply as text, filters, a lifecycle,
// the token); then the whole flow through the built CLI: `sandbox serve` with `webhook listen`
// as the webhook, a transaction made by `cardctl simulate … --forward` after the page opened,
// its exchange, and a replay the webhook receives. No request may leave 127.0.0.1.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Transaction, WebhookExchange } from '../../src/api/schemas.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { cardctl } from '../helpers/cli.js';
import { useListenerSandbox } from '../helpers/signing-sandbox.js';
import { call, createCard, createCardOverHttp, type DataEnvelope, type ListDataEnvelope } from '../sandbox/helpers.js';
import { auth, simulate } from '../sandbox/switch-helpers.js';

const CHROMIUM = process.env.CARDCTL_TEST_CHROMIUM ?? '/usr/bin/chromium';
const NO_BROWSER = existsSync(CHROMIUM) ? undefined : `no Chromium at ${CHROMIUM} (.ci/run installs Debian's chromium; CARDCTL_TEST_CHROMIUM names another)`;
if (NO_BROWSER) console.warn(`inspector browser tests skipped: ${NO_BROWSER}`);
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let browser: Browser;
beforeAll(async () => {
  if (!NO_BROWSER) browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 60_000);
afterAll(async () => browser?.close());

/**
 * A fresh browser context that records every request it makes, and the page's errors: scripts'
 * and the console's (a Content-Security-Policy violation is one), not the browser's note of an
 * answer it was given with a 4xx status (the page shows those itself).
 */
async function openContext(): Promise<{ context: BrowserContext; page: Page; requests: string[]; errors: string[] }> {
  const context = await browser.newContext();
  const requests: string[] = [];
  const errors: string[] = [];
  context.on('request', (request) => requests.push(request.url()));
  const page = await context.newPage();
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: the server responded with a status of 4')) errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return { context, page, requests, errors };
}

const outside127 = (urls: string[]) => urls.filter((url) => new URL(url).hostname !== '127.0.0.1');

describe.skipIf(NO_BROWSER !== undefined)(`the inspector page${NO_BROWSER ? ` (skipped: ${NO_BROWSER})` : ''}`, () => {
  let sandbox: RunningSandbox;
  let transaction: Transaction;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, memory: true });
  });
  afterAll(async () => sandbox?.close());

  it('shows transactions and exchanges as they happen, replies as text, filters, a lifecycle; nothing leaves 127.0.0.1', async () => {
    const { context, page, requests, errors } = await openContext();
    try {
      const opened = await page.goto(sandbox.inspectorUrl);
      expect(opened?.status()).toBe(200);
      expect(opened?.headers()['content-security-policy']).toMatch(/^default-src 'self';/);
      await expect.poll(() => page.textContent('#status')).toBe('live');
      // Set on the page as loaded: still there at the end, so nothing reloaded it.
      await page.evaluate("document.body.dataset.kept = 'yes'");

      const card = await createCard(sandbox);
      const simulated = await simulate(sandbox, auth(card.id, { amount: 42 }));
      transaction = (await call<DataEnvelope<Transaction>>(sandbox, 'GET', `/institutions/transactions/${simulated.body.data.transactionId}`, { token: sandbox.token })).body.data;
      sandbox.deps.events.emit('transaction', transaction);
      const row = page.locator(`#transactions tr[data-id="${transaction.id}"]`);
      await row.waitFor();
      expect(await row.textContent()).toContain(transaction.cardData.pan);
      expect(await row.textContent()).not.toMatch(/\d{16}/);

      const hostile = '<img src=x id=injected onerror="document.title=\'owned\'">';
      const exchange: WebhookExchange = {
        id: 'wx_page_test', at: new Date().toISOString(), transactionId: transaction.id, originalId: null, cardId: card.id,
        kind: 'authorization', mti: '0100', attempt: 1, replayOf: null, signatureScheme: 'cardctl',
        request: { method: 'POST', url: 'http://127.0.0.1:9/hook', headers: { 'x-webhook-signature': '[redacted]' }, body: { 0: '0100', 2: transaction.cardData.pan, 43: hostile } },
        response: { status: 200, headers: { 'content-type': 'text/html' }, body: hostile, truncated: false },
        latencyMs: 7, verdict: 'refused', reason: 'the reply is not application/json', responseCode: null, faults: [],
      };
      sandbox.deps.events.emit('exchange', exchange);
      const item = page.locator('#exchanges li[data-id="wx_page_test"]');
      await item.click();
      expect(await page.textContent('#exchange-detail .reply-body')).toBe(hostile);
      expect(await page.textContent('#exchange-detail .request-body')).toContain(transaction.cardData.pan);
      expect(await page.textContent('#exchange-detail .verdict')).toBe('refused');
      expect(await page.textContent('#exchange-detail .reason')).toBe('the reply is not application/json');
      expect(await page.locator('#injected').count()).toBe(0);
      expect(await page.title()).not.toBe('owned');

      // Failed only: the approved authorization goes, the refused exchange stays; a card that matches nothing hides both.
      await page.check('#filter-failed');
      await expect.poll(() => row.count()).toBe(0);
      expect(await item.count()).toBe(1);
      await page.uncheck('#filter-failed');
      await page.fill('#filter-card', 'no-such-card');
      await expect.poll(() => item.count()).toBe(0);
      expect(await row.count()).toBe(0);
      await page.fill('#filter-card', card.id);
      await expect.poll(() => item.count()).toBe(1);
      await page.selectOption('#filter-kind', 'authorization');
      expect(await row.count()).toBe(1);
      await page.selectOption('#filter-kind', '');

      await row.click();
      await page.locator('#lifecycle .timeline li').first().waitFor();
      expect(await page.textContent('#lifecycle [data-amount="held"]')).toContain('42');
      expect(await page.textContent('#lifecycle .timeline')).toContain('authorization 0100');

      // Replaying a record the exchange log does not hold: the page says why.
      await item.click();
      await page.click('#exchange-detail button.replay');
      await expect.poll(() => page.textContent('#exchange-detail .replay-result')).toMatch(/^replay failed: 404/);

      expect(await page.getAttribute('body', 'data-kept')).toBe('yes');
      expect(errors).toEqual([]);
      expect(requests.length).toBeGreaterThan(3);
      expect(outside127(requests)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('without the token, or with another, the page is a 401 that shows no data', async () => {
    const { context, page } = await openContext();
    try {
      for (const url of [`${sandbox.baseUrl}/sandbox/inspector`, `${sandbox.baseUrl}/sandbox/inspector?token=insp_${'A'.repeat(43)}`]) {
        const response = await page.goto(url);
        expect(response?.status()).toBe(401);
        expect(await page.textContent('body')).toContain('open the inspector with the link');
      }
    } finally {
      await context.close();
    }
  });
  it('says so when the sandbox stops, and when one restarted there no longer knows its token', async () => {
    const first = await startSandbox({ port: 0, memory: true });
    const port = new URL(first.baseUrl).port;
    const { context, page } = await openContext();
    let second: RunningSandbox | undefined;
    try {
      await page.goto(first.inspectorUrl);
      await expect.poll(() => page.textContent('#status')).toBe('live');
      // Every status the page shows, kept: "reconnecting…" may last less than a poll (a freed port
      // can be taken at once by another test's server, which refuses the stream for good).
      await page.evaluate("window.statuses = []; new MutationObserver(() => window.statuses.push(document.querySelector('#status').textContent)).observe(document.querySelector('#status'), { childList: true, characterData: true, subtree: true })");
      await first.close();
      await expect.poll(() => page.evaluate('window.statuses')).toContain('reconnecting…');
      second = await startSandbox({ port: Number(port), memory: true });
      await expect.poll(() => page.textContent('#status'), { timeout: 10_000 }).toMatch(/^disconnected: open the link/);
    } finally {
      await context.close();
      await first.close();
      await second?.close();
    }
  });
});

describe.skipIf(NO_BROWSER !== undefined)(`the inspector with the built CLI${NO_BROWSER ? ` (skipped: ${NO_BROWSER})` : ''}`, () => {
  const fixture = useListenerSandbox();

  it('shows a transaction made after the page opened, its exchange, and replays it to the webhook', async () => {
    const { sandbox, listener, config } = fixture;
    // The flow needs the sandbox's exchange log: say so at once rather than time out below.
    const log = await call<ListDataEnvelope<WebhookExchange>>(sandbox.info, 'GET', '/sandbox/webhook-exchanges?limit=1', { token: sandbox.info.token, skipOpenApiCheck: true });
    expect(log.status, 'GET /sandbox/webhook-exchanges (the exchange log) must be served').toBe(200);
    const { context, page, requests, errors } = await openContext();
    try {
      const opened = await page.goto(sandbox.info.inspectorUrl);
      expect(opened?.status()).toBe(200);
      await expect.poll(() => page.textContent('#status')).toBe('live');
      await page.evaluate("document.body.dataset.kept = 'yes'");

      const card = await createCardOverHttp(sandbox.info);
      const env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token };
      const simulated = await cardctl(['simulate', 'authorization', '--card', card, '--amount', '500', '--forward', '-o', 'json'], { configDir: config.path, env, timeout: 60_000 });
      expect(simulated.exitCode, simulated.stderr).toBe(0);
      const result = JSON.parse(simulated.stdout);
      expect(result).toMatchObject({ responseCode: '00' });

      await page.locator(`#transactions tr[data-id="${result.transactionId}"]`).waitFor();
      const exchange = page.locator(`#exchanges li[data-transaction-id="${result.transactionId}"]`).first();
      await exchange.click();
      expect(await page.textContent('#exchange-detail .verdict')).toBe('accepted');
      const exchangeId = await exchange.getAttribute('data-id');
      const received = () => listener.lines.slice(1).map((line) => JSON.parse(line)).filter((line) => line.type === 'exchange' && line.stan === result.request['11'] && line.rrn === result.request['37']);
      expect(received()).toHaveLength(1);

      await page.click('#exchange-detail button.replay');
      await page.locator(`#exchanges li[data-replay-of="${exchangeId}"]`).waitFor();
      expect(await page.textContent('#exchange-detail .replay-result')).toMatch(/^replayed as \S+: accepted$/);
      await expect.poll(() => received().length).toBe(2);

      expect(await page.getAttribute('body', 'data-kept')).toBe('yes');
      expect(errors).toEqual([]);
      expect(outside127(requests)).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);
});
