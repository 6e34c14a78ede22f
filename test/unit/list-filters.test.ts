// `tx list --card` and `cards list --status`: the API's parameters when the deployment has them;
// against one that ignores them, the pages are filtered here as they stream (said with --verbose),
// so the answer is the same.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/app/cli.js';
import { testIO } from '../helpers/context.js';
import { isolatedDirs, scratchDir } from '../helpers/dirs.js';
import { envelope, startTestServer, type TestServer } from '../helpers/http-server.js';

/** 25 transactions, newest first, of cards a (every third) and b; 10 a page. */
const TRANSACTIONS = Array.from({ length: 25 }, (_, i) => ({
  id: `tx${String(25 - i).padStart(2, '0')}`,
  createdAt: new Date(Date.UTC(2026, 0, 1, 0, 25 - i)).toISOString(),
  card: { id: i % 3 === 0 ? 'a' : 'b' },
}));
const CARDS = [{ id: 'c1', status: 'active' }, { id: 'c2', status: 'suspended' }, { id: 'c3', status: 'active' }];

let server: TestServer;
/** Whether the server honours cardId and status (a sandbox does) or ignores them (an older deployment). */
let honours = true;
beforeAll(async () => {
  server = await startTestServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const page = Number(url.searchParams.get('page') ?? 1);
    const limit = Number(url.searchParams.get('limit') ?? 20);
    const cardId = honours ? url.searchParams.get('cardId') : null;
    const status = honours ? url.searchParams.get('status') : null;
    const all = url.pathname === '/institutions/cards'
      ? CARDS.filter((card) => !status || card.status === status)
      : TRANSACTIONS.filter((tx) => !cardId || tx.card.id === cardId);
    envelope(res, all.slice((page - 1) * limit, page * limit), { pagination: { page, limit, total: all.length, pages: Math.ceil(all.length / limit) } });
  });
});
afterAll(() => server.close());
let dir: string;
beforeEach(() => {
  dir = scratchDir();
  server.requests.length = 0;
});

async function run(argv: string[]) {
  const io = testIO();
  const code = await main(argv, { io, env: { ...isolatedDirs(dir), CARDCTL_BASE_URL: server.url, CARDCTL_TOKEN: 'tok_filters_123456' } });
  return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
}
const ids = (stdout: string) => stdout.trim().split('\n').filter(Boolean);
const OF_A = TRANSACTIONS.filter((tx) => tx.card.id === 'a').map((tx) => tx.id);

describe('tx list --card', () => {
  for (const honoured of [true, false]) {
    it(`${honoured ? 'sends cardId' : 'against a deployment that ignores cardId, filters the pages here'}: the same transactions, one page or --all`, async () => {
      honours = honoured;
      const first = await run(['tx', 'list', '--card', 'a', '--limit', '5', '-q', '-v']);
      expect(first.code, first.stderr).toBe(0);
      expect(ids(first.stdout)).toEqual(OF_A.slice(0, 5));
      expect(server.requests[0]!.url).toContain('cardId=a');
      expect(first.stderr.includes('the API ignored cardId')).toBe(!honoured);
      const second = await run(['tx', 'list', '--card', 'a', '--limit', '5', '--page', '2', '-q']);
      expect(ids(second.stdout)).toEqual(OF_A.slice(5, 10));
      const all = await run(['tx', 'list', '--card', 'a', '--all', '--limit', '10', '-o', 'ndjson', '-v']);
      expect(ids(all.stdout).map((line) => JSON.parse(line).id)).toEqual(OF_A);
      expect(all.stderr.includes('the API ignored cardId')).toBe(!honoured);
    });
  }
});

describe('cards list --status', () => {
  for (const honoured of [true, false]) {
    it(`${honoured ? 'sends status' : 'filters here when the deployment ignores status'}`, async () => {
      honours = honoured;
      expect(ids((await run(['cards', 'list', '--status', 'active', '-q'])).stdout)).toEqual(['c1', 'c3']);
      expect(ids((await run(['cards', 'list', '--status', 'active', '--all', '-q'])).stdout)).toEqual(['c1', 'c3']);
      expect(server.requests.every((r) => r.url.includes('status=active'))).toBe(true);
    });
  }
  it('a status that is not one is exit 2, nothing sent', async () => {
    const result = await run(['cards', 'list', '--status', 'bogus']);
    expect(result.code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});
