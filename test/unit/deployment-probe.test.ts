// The decisions of `doctor --deployment` (src/deployment/probe.ts), against a fake deployment
// whose parameter names, paging, page size limit and error body are set per test.
import { describe, expect, it } from 'vitest';
import { DEFAULT_DIALECT, LIST_PATHS, resolveDialect, type Dialect, type DialectOverrides, type ListName } from '../../src/api/dialect.js';
import { setPath } from '../../src/core/object-path.js';
import type { Check } from '../../src/core/check.js';
import { MISSING_CARD_ID, MISSING_CARD_PATH, probeDeployment, type ProbeAnswer, type ProbeTarget } from '../../src/deployment/probe.js';

interface Fake {
  /** What the deployment speaks. */
  dialect: Dialect;
  /** Above maxPageSize: a 400, a clamp to it, or served as asked. */
  over: 'refuse' | 'clamp' | 'serve';
  records: Record<ListName, Array<Record<string, unknown>>>;
}

const FIELD_OF: Record<string, (r: Record<string, unknown>) => unknown> = {
  search: (r) => JSON.stringify(r),
  cardId: (r) => r.id,
  merchantId: (r) => r.merchantId,
  terminalId: (r) => r.terminalId,
  transactionStatus: (r) => r.transactionStatus,
  cardStatus: (r) => (r.card as { status: string }).status,
};

function records(): Fake['records'] {
  const cards = [1, 2, 3, 4, 5].map((n) => ({ id: `card-${n}`, referenceCode: `REF-${n}A`, status: n % 2 ? 'active' : 'suspended' }));
  return {
    cards,
    transactions: [1, 2, 3, 4].map((n) => ({
      id: `tx-${n}`, merchantId: `M${n % 2}`, terminalId: `T${n}`, transactionStatus: n === 1 ? 'pending' : 'completed', card: cards[n - 1],
    })),
    oauth: ['alpha app', 'beta app', 'gamma app'].map((name, n) => ({ id: `app-${n}`, name })),
  };
}

/** A deployment as the fake dialect says; `seen` records every request. */
function deployment(fake: Fake, seen: string[] = []): ProbeTarget {
  const { dialect } = fake;
  const error = (status: number, message: string, code: string, fields?: unknown[]): ProbeAnswer => {
    const body: Record<string, unknown> = { statusCode: status };
    setPath(body, dialect.errors.message, message);
    setPath(body, dialect.errors.code, code);
    if (fields) setPath(body, dialect.errors.fields, fields);
    return { status, body };
  };
  return {
    async get(path, query) {
      seen.push(`${path}?${new URLSearchParams(query as Record<string, string>)}`);
      const activation = /^\/institutions\/cards\/([^/]+)\/activate$/.exec(path);
      if (activation) return error(404, `card ${activation[1]} not found`, 'NOT_FOUND');
      const list = (Object.keys(LIST_PATHS) as ListName[]).find((l) => LIST_PATHS[l] === path);
      // A path the API does not serve: the gateway's answer, in its own shape.
      if (!list) return { status: 404, body: { status: 404, title: 'Not Found' } };
      const names = dialect.params[list] as Record<string, string>;
      let limit = Number(query[names.limit!] ?? Math.min(20, dialect.maxPageSize));
      const page = Number(query[names.page!] ?? 1);
      if (limit > dialect.maxPageSize) {
        if (fake.over === 'refuse') return error(400, `${names.limit} must be at most ${dialect.maxPageSize}`, 'VALIDATION_ERROR', [{ field: names.limit, message: 'too large' }]);
        if (fake.over === 'clamp') limit = dialect.maxPageSize;
      }
      let matching = fake.records[list];
      for (const [option, name] of Object.entries(names)) {
        const value = query[name];
        if (value === undefined || option === 'limit' || option === 'page') continue;
        matching = matching.filter((r) => (option === 'search'
          ? String(FIELD_OF.search!(r)).toLowerCase().includes(String(value).toLowerCase())
          : FIELD_OF[option]!(r) === value));
      }
      const body: Record<string, unknown> = { statusCode: 200, message: 'ok', data: matching.slice((page - 1) * limit, page * limit) };
      if (dialect.paging.style === 'metadata') {
        setPath(body, dialect.paging.pages, Math.ceil(matching.length / limit));
        setPath(body, dialect.paging.total, matching.length);
      }
      return { status: 200, body };
    },
  };
}

const failedOf = (checks: Check[]) => checks.filter((c) => !c.ok && !c.skipped);

describe('doctor --deployment decisions', () => {
  it('passes every check when the profile speaks the deployment\'s dialect', async () => {
    const spoken = resolveDialect({
      params: { cards: { limit: 'pageSize', search: 'q' }, transactions: { page: 'p', merchantId: 'merchant' }, oauth: { search: 'filter' } },
      paging: { pages: 'meta.totalPages', total: 'meta.count' },
      maxPageSize: 3,
      errors: { message: 'error.detail', code: 'error.kind', fields: 'error.fields' },
    });
    const seen: string[] = [];
    const checks = await probeDeployment(deployment({ dialect: spoken, over: 'refuse', records: records() }, seen), spoken);
    expect(failedOf(checks)).toEqual([]);
    expect(checks.filter((c) => c.skipped)).toEqual([]);
    expect(checks.map((c) => c.name)).toEqual(expect.arrayContaining([
      'cards page size', 'cards page', 'cards paging', 'cards max page size', 'cards search', 'cards cardId',
      'transactions merchantId', 'transactions terminalId', 'transactions transactionStatus',
      'oauth search', 'error message', 'error code', 'error fields',
    ]));
    // The error shape is judged on a real endpoint's 404 for a missing card, not on an unknown path's.
    expect(seen).toContain(`${LIST_PATHS.cards}/${MISSING_CARD_ID}/activate?`);
    expect(MISSING_CARD_PATH).toBe(`${LIST_PATHS.cards}/${MISSING_CARD_ID}/activate`);
    expect(checks.find((c) => c.name === 'error message')?.detail).toContain(`"card ${MISSING_CARD_ID} not found"`);
  });

  it('names each wrong setting, and the value that works', async () => {
    const spoken = resolveDialect({
      params: { cards: { limit: 'per_page' }, transactions: { page: 'pageNumber', terminalId: 'terminal' }, oauth: { search: 'q' } },
      errors: { message: 'error.detail', code: 'error.kind' },
    });
    const checks = await probeDeployment(deployment({ dialect: spoken, over: 'refuse', records: records() }), DEFAULT_DIALECT);
    const wrong = Object.fromEntries(failedOf(checks).map((c) => [c.setting, c.suggestion]));
    expect(wrong).toEqual({
      'params.cards.limit': 'per_page',
      'params.transactions.page': 'pageNumber',
      'params.transactions.terminalId': 'terminal',
      'params.oauth.search': 'q',
      'errors.message': 'error.detail',
      'errors.code': 'error.kind',
    });
    const limit = checks.find((c) => c.setting === 'params.cards.limit')!;
    expect(limit.detail).toBe('"limit" is not understood: limit=1 gave 5 records');
    expect(limit.fix).toBe('cardctl profile set params.cards.limit per_page (that works)');
    // The checks after a wrong name go on with the name that works.
    expect(checks.find((c) => c.name === 'cards page')).toMatchObject({ ok: true });
  });

  it('says so when no common name works', async () => {
    const spoken = resolveDialect({ params: { oauth: { search: 'needle' } } });
    const checks = await probeDeployment(deployment({ dialect: spoken, over: 'refuse', records: records() }), DEFAULT_DIALECT);
    expect(failedOf(checks)).toEqual([expect.objectContaining({
      setting: 'params.oauth.search',
      fix: 'cardctl profile set params.oauth.search VALUE, the deployment\'s own (none of search, q, query, filter, keyword works)',
    })]);
  });

  it('cannot tell with fewer than 2 records: skipped, not failed', async () => {
    const few = { ...records(), oauth: [{ id: 'app-1', name: 'only' }] };
    const checks = await probeDeployment(deployment({ dialect: DEFAULT_DIALECT as Dialect, over: 'refuse', records: few }), DEFAULT_DIALECT);
    expect(checks.find((c) => c.name === 'oauth')).toMatchObject({ skipped: true, detail: 'cannot tell: the list has 1 record, the checks of its parameters need 2 or more' });
    expect(checks.filter((c) => c.name.startsWith('oauth'))).toEqual([
      expect.objectContaining({ name: 'oauth', skipped: true }),
      // A refusal needs no records.
      expect.objectContaining({ name: 'oauth max page size', ok: true }),
    ]);
    expect(failedOf(checks)).toEqual([]);
  });

  it('a list outside the envelope fails; one the token may not read is skipped', async () => {
    const fake = deployment({ dialect: DEFAULT_DIALECT as Dialect, over: 'refuse', records: records() });
    const target: ProbeTarget = {
      get: (path, query) => (path === LIST_PATHS.cards ? Promise.resolve({ status: 200, body: { items: [] } })
        : path === LIST_PATHS.oauth ? Promise.resolve({ status: 403, body: { statusCode: 403, message: 'forbidden', error: 'FORBIDDEN' } })
          : fake.get(path, query)),
    };
    const checks = await probeDeployment(target, DEFAULT_DIALECT);
    expect(checks.find((c) => c.name === 'cards')).toMatchObject({ ok: false, detail: 'GET /institutions/cards answered without a list in data' });
    expect(checks.find((c) => c.name === 'cards')!.skipped).toBeUndefined();
    expect(checks.find((c) => c.name === 'oauth')).toMatchObject({ skipped: true, detail: 'cannot tell: GET /institutions/oauth/applications answered 403' });
    expect(checks.find((c) => c.name === 'transactions page size')).toMatchObject({ ok: true });
  });

  it.each([
    ['refuse', 2, { ok: true, detail: 'limit=3 is refused (400), 2 is served' }],
    ['clamp', 2, { ok: true, detail: 'limit=3 is clamped to 2 records' }],
    ['serve', 2, { ok: false, setting: 'maxPageSize', detail: expect.stringContaining('neither refused nor clamped') }],
    // The deployment refuses what the profile says it serves: the largest size it does serve.
    ['refuse', 4, { ok: false, setting: 'maxPageSize', suggestion: 2, fix: 'cardctl profile set maxPageSize 2 (the deployment serves that)' }],
  ] as const)('a page size above maxPageSize: the deployment %s at 2, the profile says %i', async (over, configured, expected) => {
    const spoken = resolveDialect({ maxPageSize: 2 });
    const checks = await probeDeployment(deployment({ dialect: spoken, over, records: records() }), resolveDialect({ maxPageSize: configured }));
    expect(checks.find((c) => c.name === 'cards max page size')).toMatchObject(expected);
  });

  it('metadata at other paths is found; no metadata at all suggests short-page', async () => {
    const elsewhere = resolveDialect({ paging: { pages: 'meta.pageCount', total: 'meta.total' } });
    let checks = await probeDeployment(deployment({ dialect: elsewhere, over: 'refuse', records: records() }), DEFAULT_DIALECT);
    expect(checks.find((c) => c.name === 'cards paging')).toMatchObject({
      ok: false, fix: 'cardctl profile set paging.pages meta.pageCount; cardctl profile set paging.total meta.total',
    });
    const none = resolveDialect({ paging: { style: 'short-page' } });
    checks = await probeDeployment(deployment({ dialect: none, over: 'refuse', records: records() }), DEFAULT_DIALECT);
    expect(checks.find((c) => c.name === 'cards paging')).toMatchObject({ ok: false, setting: 'paging.pages', suggestion: 'short-page' });
    checks = await probeDeployment(deployment({ dialect: none, over: 'refuse', records: records() }), none);
    expect(checks.find((c) => c.name === 'cards paging')).toMatchObject({ ok: true, detail: 'short-page: page 1 of size 100 holds 5 records and page 2 is empty' });
  });

  it('error fields at another path are found from the refusal of an over-large page', async () => {
    const spoken = resolveDialect({ errors: { fields: 'problems' } });
    const checks = await probeDeployment(deployment({ dialect: spoken, over: 'refuse', records: records() }), DEFAULT_DIALECT);
    expect(failedOf(checks)).toEqual([expect.objectContaining({ setting: 'errors.fields', suggestion: 'problems' })]);
  });
});
