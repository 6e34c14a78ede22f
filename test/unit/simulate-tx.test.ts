// `tx list` and `tx show` against a mocked API: filters become query parameters, --since/--until
// filter on the client, `tx show` falls back to scanning the list when the by-id route is missing.
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/app/cli.js';
import { testIO } from '../helpers/context.js';
import { scratchDirs } from '../helpers/dirs.js';

const BASE = 'http://127.0.0.1:4010';

function tx(id: string, createdAt: string, extra: Record<string, unknown> = {}) {
  return {
    id, _id: id, createdAt, mti: '0100', stan: '000001', rrn: '632614000001', responseCode: '51', transactionStatus: 'failed',
    merchantId: 'M1', terminalId: 'T1', amounts: { amount: '000000150000', currency: '566' }, cardData: { pan: '506099******0008' },
    originalMessage: { '0': '0100', '4': '000000150000', '49': '566' }, response: { '0': '0110', '39': '51' },
    timestamps: {
      switchToService: { timestamp: '2026-11-22T10:00:00.000Z', direction: 'inbound', description: 'in' },
      serviceToInstitution: { timestamp: '2026-11-22T10:00:00.005Z', direction: 'outbound', description: 'out' },
      institutionToService: { timestamp: '2026-11-22T10:00:00.025Z', direction: 'inbound', description: 'back' },
      serviceToSwitch: { timestamp: '2026-11-22T10:00:00.026Z', direction: 'outbound', description: 'answer' },
    },
    duration: 26,
    ...extra,
  };
}

async function run(args: string[], routes: (agent: MockAgent, seen: string[]) => void) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const seen: string[] = [];
  routes(agent, seen);
  const io = testIO();
  const code = await main(args, {
    io, env: { CARDCTL_BASE_URL: BASE, CARDCTL_TOKEN: 't', ...scratchDirs(), CI: '1' }, dispatcher: agent, signal: new AbortController().signal,
  });
  return { code, out: io.stdoutText(), err: io.stderrText(), seen };
}

const json = (body: unknown, status = 200) => ({ statusCode: status, data: JSON.stringify(body), responseOptions: { headers: { 'content-type': 'application/json' } } });

describe('tx list', () => {
  it('sends every filter as the API query and prints tab-separated rows when piped', async () => {
    const r = await run(['tx', 'list', '--merchant', 'M1', '--terminal', 'T1', '--card-status', 'active', '--status', 'failed', '--limit', '5', '--page', '2'], (agent, seen) => {
      agent.get(BASE).intercept({ path: (p) => p.startsWith('/institutions/transactions'), method: 'GET' }).reply((opts) => {
        seen.push(opts.path);
        return json({ statusCode: 200, message: 'ok', data: [tx('a', '2026-11-22T10:00:00.000Z')], pagination: { page: 2, limit: 5, total: 6, pages: 2 } });
      });
    });
    expect(r.code, r.err).toBe(0);
    const url = new URL(r.seen[0]!, BASE);
    expect(Object.fromEntries(url.searchParams)).toEqual({ merchantId: 'M1', terminalId: 'T1', cardStatus: 'active', transactionStatus: 'failed', limit: '5', page: '2' });
    expect(r.out).toBe('a\t2026-11-22T10:00:00.000Z\t0100\t506099******0008\t1500.00\t51\tfailed\t000001\t632614000001\tM1\tT1\n');
  });

  it('--since/--until filter on the client; --all stops paging once pages are older than --since', async () => {
    const pages = [
      [tx('n1', '2026-11-22T11:00:00.000Z'), tx('n2', '2026-11-22T09:00:00.000Z')],
      [tx('o1', '2026-11-20T09:00:00.000Z'), tx('o2', '2026-11-19T09:00:00.000Z')],
      [tx('o3', '2026-11-18T09:00:00.000Z')],
    ];
    const r = await run(['tx', 'list', '--all', '--limit', '2', '--since', '2026-11-22T08:00:00Z', '--until', '2026-11-22T10:30:00Z', '-o', 'ndjson'], (agent, seen) => {
      agent.get(BASE).intercept({ path: (p) => p.startsWith('/institutions/transactions'), method: 'GET' }).reply((opts) => {
        seen.push(opts.path);
        const page = Number(new URL(opts.path, BASE).searchParams.get('page'));
        return json({ statusCode: 200, message: 'ok', data: pages[page - 1], pagination: { page, limit: 2, total: 5, pages: 3 } });
      }).persist();
    });
    expect(r.code, r.err).toBe(0);
    expect(r.out.trim().split('\n').map((l) => JSON.parse(l).id)).toEqual(['n2']);
    expect(r.seen).toHaveLength(2);
  });

  it('refuses bad time bounds before sending anything', async () => {
    const r = await run(['tx', 'list', '--since', 'soon'], () => {});
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--since/);
  });
});

describe('tx show', () => {
  it('uses GET /institutions/transactions/{id} and prints record, messages and timeline', async () => {
    const r = await run(['tx', 'show', 'a1'], (agent) => {
      agent.get(BASE).intercept({ path: '/institutions/transactions/a1', method: 'GET' }).reply(() => json({ statusCode: 200, message: 'ok', data: tx('a1', '2026-11-22T10:00:00.000Z') }));
      // A deployment has no lifecycle route: the view is the transaction alone.
      agent.get(BASE).intercept({ path: '/sandbox/transactions/a1/lifecycle', method: 'GET' }).reply(() => json({ statusCode: 404, message: 'Cannot GET /sandbox/transactions/a1/lifecycle', error: 'Not Found' }, 404));
    });
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain('id\ta1\n');
    expect(r.out).toContain('4\tAmount, transaction\t000000150000\t₦1,500.00\n');
    expect(r.out).toContain('39\tResponse code\t51\tInsufficient funds\n');
    expect(r.out).toContain('2026-11-22T10:00:00.025Z\tinstitution → service\tinbound\t+25 ms\tback\n');
    expect(r.out).not.toContain('# lifecycle');
    expect(r.err).toBe('');
  });

  it('ends with the lifecycle where the server has the route', async () => {
    const lifecycle = {
      originalTransactionId: 'a1', transactionStatus: 'completed', currency: '566',
      amounts: { requested: 1000, authorized: 1250, held: 0, captured: 900, released: 350, refunded: 0 },
      messages: [
        { transactionId: 'a1', mti: '0100', messageKind: 'authorization', amount: 1000, responseCode: '00', transactionStatus: 'completed', createdAt: '2026-11-22T10:00:00.000Z' },
        { transactionId: 'c3', mti: '0220', messageKind: 'completion', amount: 900, responseCode: '00', transactionStatus: 'completed', createdAt: '2026-11-22T10:05:00.000Z' },
      ],
    };
    const r = await run(['tx', 'show', 'a1'], (agent) => {
      agent.get(BASE).intercept({ path: '/institutions/transactions/a1', method: 'GET' }).reply(() => json({ statusCode: 200, message: 'ok', data: tx('a1', '2026-11-22T10:00:00.000Z') }));
      agent.get(BASE).intercept({ path: '/sandbox/transactions/a1/lifecycle', method: 'GET' }).reply(() => json({ statusCode: 200, message: 'ok', data: lifecycle }));
    });
    expect(r.code, r.err).toBe(0);
    const shown = r.out.slice(r.out.indexOf('# lifecycle\n'));
    expect(shown).toContain('a1\tcompleted\trequested 1000\tauthorized 1250\theld 0\tcaptured 900\treleased 350\trefunded 0\t566\n');
    expect(shown).toContain('c3\tcompletion\t0220\t900\t00\tcompleted\t2026-11-22T10:05:00.000Z\n');
  });

  it('scans the list when the deployment has no by-id route', async () => {
    const r = await run(['tx', 'show', 'b2', '-o', 'json'], (agent, seen) => {
      const pool = agent.get(BASE);
      pool.intercept({ path: '/institutions/transactions/b2', method: 'GET' }).reply(() => json({ statusCode: 404, message: 'Cannot GET /institutions/transactions/b2', error: 'Not Found' }, 404));
      pool.intercept({ path: (p) => p.startsWith('/institutions/transactions?'), method: 'GET' }).reply((opts) => {
        seen.push(opts.path);
        const page = Number(new URL(opts.path, BASE).searchParams.get('page'));
        const data = page === 1 ? Array.from({ length: 100 }, (_, i) => tx(`x${i}`, '2026-11-22T10:00:00.000Z')) : [tx('b2', '2026-11-21T10:00:00.000Z')];
        return json({ statusCode: 200, message: 'ok', data });
      }).persist();
    });
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ id: 'b2' });
    expect(r.seen).toHaveLength(2);
  });

  it('an unknown id on the sandbox route is exit 4 without scanning', async () => {
    const r = await run(['tx', 'show', 'zz'], (agent, seen) => {
      const pool = agent.get(BASE);
      pool.intercept({ path: '/institutions/transactions/zz', method: 'GET' }).reply(() => json({ statusCode: 404, message: 'transaction zz not found', error: 'NOT_FOUND' }, 404));
      pool.intercept({ path: (p) => p.startsWith('/institutions/transactions?'), method: 'GET' }).reply((opts) => { seen.push(opts.path); return json({ statusCode: 200, message: 'ok', data: [] }); }).persist();
    });
    expect(r.code).toBe(4);
    expect(r.seen).toHaveLength(0);
    expect(r.err).toMatch(/transaction zz not found/);
  });
});
