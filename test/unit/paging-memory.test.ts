// `--all` holds one page at a time: while the next page is fetched, nothing keeps the page before
// it alive (a `for await` loop or an async generator would, in V8's suspended frames).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { forEachPage } from '../../src/api/paging.js';
import { listAllTransactions } from '../../src/api/transactions.js';
import { envelope, startTestServer, type TestServer } from '../helpers/http-server.js';

setFlagsFromString('--expose-gc');
const collectGarbage: () => void = runInNewContext('gc');

let server: TestServer;
let client: ApiClient;
beforeEach(async () => {
  server = await startTestServer();
  client = new ApiClient({ baseUrl: server.url, getToken: async () => 'tok_secret_value_123', retries: 0, env: {} });
});
afterEach(async () => {
  await client.close();
  await server.close();
});

const PAGES = 4;
const LIMIT = 50;

it('forEachPage over paginate(): the page before is garbage while the next is fetched', async () => {
  const handedOver: WeakRef<object>[] = [];
  const aliveDuringFetch: number[] = [];
  server.fallback((req, res) => {
    const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
    if (page > 1) {
      collectGarbage();
      aliveDuringFetch.push(handedOver.filter((ref) => ref.deref() !== undefined).length);
    }
    const records = Array.from({ length: LIMIT }, (_, i) => ({ id: `tx_${page}_${i}`, amount: i, narration: 'x'.repeat(200) }));
    envelope(res, records, { pagination: { page, limit: LIMIT, total: PAGES * LIMIT, pages: PAGES } });
  });
  let seen = 0;
  await forEachPage(listAllTransactions(client, { limit: LIMIT }), async (page) => {
    const records = [...page.records()];
    seen += records.length;
    handedOver.push(new WeakRef(records[0]!));
    await new Promise((resolve) => setImmediate(resolve));
  });
  expect(seen).toBe(PAGES * LIMIT);
  expect(aliveDuringFetch).toEqual([0, 0, 0]);
});

it('forEachPage stops when the page handler answers false, and asks for no further page', async () => {
  server.fallback((req, res) => {
    const page = Number(new URL(req.url, 'http://x').searchParams.get('page'));
    envelope(res, [{ id: `tx_${page}` }], { pagination: { page, limit: 1, total: PAGES, pages: PAGES } });
  });
  const handled: string[] = [];
  await forEachPage(listAllTransactions(client, { limit: 1 }), async (page) => {
    handled.push(...[...page.records()].map((tx) => tx.id));
    return handled.length < 2;
  });
  expect(handled).toEqual(['tx_1', 'tx_2']);
  expect(server.requests).toHaveLength(2);
});
