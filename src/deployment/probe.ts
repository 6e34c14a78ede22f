// `cardctl doctor --deployment`: does the deployment speak the profile's dialect
// (src/api/dialect.ts)? Every probe is a GET of a list, or the activation of a card that does
// not exist: never a write, and never a GET that changes a card that exists. For each list it asks
// whether the page size and page parameters work (page 2 of size 1 is the second record of
// page 1 of size 2), whether each filter narrows the list to a record it was taken from,
// whether a page size above maxPageSize is refused or clamped, and whether the paging metadata
// agrees with the last page; then whether an error body carries its message, code and field
// errors where the dialect says. A failed check names the setting, and, when one of a few
// common names or paths works (a bounded number of GETs), the value to set.
import { LIST_NAMES, LIST_PATHS, readPath, type Dialect, type ListName } from '../api/dialect.js';
import type { Check } from '../core/check.js';
import { isObject } from '../core/is-object.js';

/** One GET, answered as is: the status and the parsed JSON body (undefined when not JSON). */
export interface ProbeAnswer {
  status: number;
  body: unknown;
}

export interface ProbeTarget {
  get(path: string, query: Record<string, string | number>): Promise<ProbeAnswer>;
}

/** Names other deployments give the paging parameters, tried when the configured one fails. */
const PAGING_NAMES = {
  limit: ['limit', 'pageSize', 'per_page', 'size', 'page_size', 'perPage'],
  page: ['page', 'pageNumber', 'page_number', 'p', 'pageNo'],
} as const;

interface Filter {
  option: string;
  /** Where a record holds the value the filter matches. */
  field: string;
  /** exact: the record's field equals the value; text: a free-text search the record contains. */
  match: 'exact' | 'text';
  /** Other names to try, besides the option's own name and its snake_case. */
  alternatives: readonly string[];
}

const SEARCH_NAMES = ['q', 'query', 'filter', 'keyword'];

/** The filters each list is checked with, and the record field each one is seen to match. */
const FILTERS: Readonly<Record<ListName, readonly Filter[]>> = {
  cards: [
    { option: 'search', field: 'referenceCode', match: 'text', alternatives: SEARCH_NAMES },
    { option: 'cardId', field: 'id', match: 'exact', alternatives: ['id'] },
  ],
  transactions: [
    { option: 'merchantId', field: 'merchantId', match: 'exact', alternatives: ['merchant'] },
    { option: 'terminalId', field: 'terminalId', match: 'exact', alternatives: ['terminal'] },
    { option: 'transactionStatus', field: 'transactionStatus', match: 'exact', alternatives: ['status'] },
    // Not cardStatus: it filters on the card's status now, and a transaction carries its card as
    // it was, so no record tells what the filter should give.
  ],
  oauth: [
    { option: 'search', field: 'name', match: 'text', alternatives: SEARCH_NAMES },
  ],
};

/** An id no card has (an ObjectId of 1970): the error-shape probe asks for it. */
export const MISSING_CARD_ID = '000000000000000000000000';

/**
 * The error-shape probe: a real endpoint of the API asked about a card that does not exist, so
 * what is judged is the deployment's 404 for a missing resource, not its answer to an unknown
 * path (often a gateway's, in another shape). The API has no GET of one card; activation is a
 * GET by card id, and of a card that does not exist it changes nothing.
 */
export const MISSING_CARD_PATH = `${LIST_PATHS.cards}/${MISSING_CARD_ID}/activate`;

export async function probeDeployment(target: ProbeTarget, dialect: Dialect): Promise<Check[]> {
  const checks: Check[] = [];
  let refusal: ProbeAnswer | undefined;
  for (const list of LIST_NAMES) {
    const probe = new ListProbe(target, dialect, list);
    checks.push(...await probe.run());
    refusal ??= probe.refusal;
  }
  checks.push(...await probeErrors(target, dialect, refusal));
  return checks;
}

class ListProbe {
  /** The answer to an over-large page size, when it was refused: an error body with field errors, maybe. */
  refusal?: ProbeAnswer;
  private readonly path: string;
  private readonly names: Record<string, string>;

  constructor(private readonly target: ProbeTarget, private readonly dialect: Dialect, private readonly list: ListName) {
    this.path = LIST_PATHS[list];
    this.names = dialect.params[list] as Record<string, string>;
  }

  private async records(query: Record<string, string | number>): Promise<unknown[] | undefined> {
    const answer = await this.target.get(this.path, query);
    return answer.status < 400 ? recordsOf(answer.body) : undefined;
  }

  async run(): Promise<Check[]> {
    const first = await this.target.get(this.path, {});
    const records = first.status < 400 ? recordsOf(first.body) : undefined;
    if (first.status === 401 || first.status === 403) {
      // The token check says why; a token without this list's scope is not a dialect problem.
      return [{ name: this.list, ok: false, skipped: true, detail: `cannot tell: GET ${this.path} answered ${first.status}` }];
    }
    if (!records) {
      const why = first.status >= 400 ? `answered ${first.status}` : 'answered without a list in data';
      return [{ name: this.list, ok: false, detail: `GET ${this.path} ${why}`, fix: 'check the base URL: the dialect can rename parameters and paths, not the envelope ({statusCode, message, data})' }];
    }
    if (records.length < 2) {
      const checks: Check[] = [{ name: this.list, ok: false, skipped: true, detail: `cannot tell: the list has ${records.length} record${records.length === 1 ? '' : 's'}, the checks of its parameters need 2 or more` }];
      // A refusal needs no records.
      await this.maxPageSize(checks, this.names.limit!, undefined);
      return checks;
    }
    const checks: Check[] = [];
    const limit = await this.pageSize(checks);
    const page = limit ? await this.pageNumber(checks, limit) : this.skip(checks, 'page', 'page', 'needs a working page size parameter');
    const total = limit && page ? await this.paging(checks, limit, page) : this.skip(checks, 'paging', 'paging.style', 'needs working page and page size parameters');
    if (limit) await this.maxPageSize(checks, limit, total);
    else this.skip(checks, 'max page size', 'maxPageSize', 'needs a working page size parameter');
    for (const filter of FILTERS[this.list]) await this.filter(checks, filter, records);
    return checks;
  }

  private skip(checks: Check[], what: string, setting: string, why: string): undefined {
    checks.push({ name: `${this.list} ${what}`, ok: false, skipped: true, setting: this.settingKey(setting), detail: `cannot tell: ${why}` });
    return undefined;
  }

  private settingKey(setting: string): string {
    return setting in this.names ? `params.${this.list}.${setting}` : setting;
  }

  /** A page size of 1 gives one record. */
  private async pageSize(checks: Check[]): Promise<string | undefined> {
    const works = async (name: string) => (await this.records({ [name]: 1 }))?.length === 1;
    const configured = this.names.limit!;
    const got = (await this.records({ [configured]: 1 }))?.length;
    if (got === 1) {
      checks.push({ name: `${this.list} page size`, ok: true, detail: `${configured}=1 gives 1 record` });
      return configured;
    }
    const found = await firstWorking(PAGING_NAMES.limit, configured, works);
    checks.push(failed(`${this.list} page size`, this.settingKey('limit'), `"${configured}" is not understood: ${configured}=1 gave ${got === undefined ? 'an error' : `${got} records`}`, found, PAGING_NAMES.limit));
    return found;
  }

  /** Page 2 of size 1 is the second record of page 1 of size 2. */
  private async pageNumber(checks: Check[], limit: string): Promise<string | undefined> {
    const two = await this.records({ [limit]: 2 });
    if (!two || two.length < 2) return this.skip(checks, 'page', 'page', `${limit}=2 gave ${two?.length ?? 0} records`);
    const second = identity(two[1]);
    const works = async (name: string) => {
      const page = await this.records({ [limit]: 1, [name]: 2 });
      return page?.length === 1 && identity(page[0]) === second;
    };
    const configured = this.names.page!;
    if (await works(configured)) {
      checks.push({ name: `${this.list} page`, ok: true, detail: `${configured}=2 gives the second record` });
      return configured;
    }
    const found = await firstWorking(PAGING_NAMES.page, configured, works);
    checks.push(failed(`${this.list} page`, this.settingKey('page'), `"${configured}" is not understood: ${configured}=2 with ${limit}=1 did not give the second record`, found, PAGING_NAMES.page));
    return found;
  }

  /**
   * metadata: the page count and total are where the dialect says, and the page the count names
   * is the last one (what `--all` relies on). short-page: a short page is followed by an empty one.
   * Returns the total when the metadata gave it.
   */
  private async paging(checks: Check[], limit: string, page: string): Promise<number | undefined> {
    const name = `${this.list} paging`;
    const { style, pages: pagesPath, total: totalPath } = this.dialect.paging;
    const size = this.dialect.maxPageSize;
    if (style === 'short-page') {
      const first = await this.records({ [limit]: size, [page]: 1 });
      if (!first) return this.skip(checks, 'paging', 'paging.style', `${limit}=${size} was refused (see max page size)`);
      if (first.length >= size) {
        checks.push({ name, ok: true, detail: `short-page: --all stops at the first page shorter than ${size} (not verified: the list fills a page)` });
        return undefined;
      }
      const after = await this.records({ [limit]: size, [page]: 2 });
      checks.push(after?.length === 0
        ? { name, ok: true, detail: `short-page: page 1 of size ${size} holds ${first.length} records and page 2 is empty` }
        : { name, ok: false, setting: 'maxPageSize', detail: `short-page: page 1 of size ${size} holds ${first.length} records, yet page 2 is not empty: the deployment serves smaller pages`, fix: `cardctl profile set maxPageSize ${first.length}` });
      return undefined;
    }
    const answer = await this.target.get(this.path, { [limit]: 1, [page]: 1 });
    const pages = readPath(answer.body, pagesPath);
    const total = readPath(answer.body, totalPath);
    const pageCount = /pages|page_?count|last_?page/i;
    const missing = [
      !isCount(pages) && { key: 'paging.pages', path: pagesPath, looksRight: (name: string) => pageCount.test(name) },
      !isCount(total) && { key: 'paging.total', path: totalPath, looksRight: (name: string) => /total|count/i.test(name) && !pageCount.test(name) },
    ].filter((m) => m !== false);
    if (missing.length > 0) {
      const leaves = numberLeaves(answer.body);
      const found = missing.map((m) => ({ ...m, at: leaves.find((leaf) => m.looksRight(leaf.split('.').pop()!)) }));
      const fixes = found.every((f) => f.at)
        ? found.map((f) => `cardctl profile set ${f.key} ${f.at}`)
        : leaves.length === 0 ? ['cardctl profile set paging.style short-page (the list body carries no page count)'] : [`point ${found.map((f) => f.key).join(' and ')} at the body's page count and total (numbers in the body: ${leaves.join(', ')})`];
      checks.push({
        name,
        ok: false,
        setting: found[0]!.key,
        suggestion: found[0]!.at ?? (leaves.length === 0 ? 'short-page' : undefined),
        detail: `metadata: no count at ${found.map((f) => `${f.key} "${f.path}"`).join(' or ')}`,
        fix: fixes.join('; '),
      });
      return undefined;
    }
    const last = await this.records({ [limit]: 1, [page]: pages as number });
    const after = await this.records({ [limit]: 1, [page]: (pages as number) + 1 });
    if (pages === total && last?.length === 1 && after?.length === 0) {
      checks.push({ name, ok: true, detail: `metadata: ${pagesPath} ${pages} and ${totalPath} ${total} at ${limit}=1, and page ${pages} is the last` });
      return total as number;
    }
    checks.push({
      name,
      ok: false,
      setting: 'paging.pages',
      detail: `metadata: ${pagesPath} says ${pages} pages and ${totalPath} ${total} records at ${limit}=1, but page ${pages} has ${last?.length ?? 'no'} and page ${(pages as number) + 1} ${after?.length ?? 'no'} records`,
      fix: 'point paging.pages and paging.total at the page count and record total, or cardctl profile set paging.style short-page',
    });
    return undefined;
  }

  /** maxPageSize is served; one more is refused (4xx) or clamped to maxPageSize. */
  private async maxPageSize(checks: Check[], limit: string, total: number | undefined): Promise<void> {
    const name = `${this.list} max page size`;
    const max = this.dialect.maxPageSize;
    const served = async (size: number) => {
      const answer = await this.target.get(this.path, { [limit]: size });
      if (answer.status >= 400 && answer.status < 500) this.refusal ??= answer;
      return answer.status < 400 && recordsOf(answer.body) !== undefined;
    };
    if (!(await served(max))) {
      // The largest size served, by halving: at most log2(maxPageSize) requests.
      let low = 1;
      let high = max - 1;
      while (low < high) {
        const mid = Math.ceil((low + high) / 2);
        if (await served(mid)) low = mid;
        else high = mid - 1;
      }
      const works = await served(low);
      checks.push(failed(name, 'maxPageSize', `${limit}=${max} is refused: maxPageSize ${max} is more than the deployment serves`, works ? low : undefined, []));
      return;
    }
    const over = await this.target.get(this.path, { [limit]: max + 1 });
    if (over.status >= 400 && over.status < 500) {
      this.refusal ??= over;
      checks.push({ name, ok: true, detail: `${limit}=${max + 1} is refused (${over.status}), ${max} is served` });
      return;
    }
    const count = recordsOf(over.body)?.length ?? 0;
    if (count > max) {
      checks.push({ name, ok: false, setting: 'maxPageSize', detail: `${limit}=${max + 1} gave ${count} records: the deployment serves pages larger than maxPageSize ${max}, neither refused nor clamped`, fix: 'cardctl profile set maxPageSize N, N the deployment\'s own largest page size' });
    } else if (count === max) {
      checks.push({ name, ok: true, detail: `${limit}=${max + 1} is clamped to ${max} records` });
    } else if (total !== undefined && total > count) {
      checks.push(failed(name, 'maxPageSize', `${limit}=${max + 1} is clamped to ${count} records, fewer than maxPageSize ${max}`, count, []));
    } else {
      checks.push({ name, ok: false, skipped: true, setting: 'maxPageSize', detail: `cannot tell: ${limit}=${max + 1} gave all ${count} records${total === undefined ? ' (no record total to compare with)' : ''}; the list needs more than ${max} to show a refusal or a clamp` });
    }
  }

  /** A filter for a value taken from a record gives that record and leaves out others. */
  private async filter(checks: Check[], filter: Filter, records: readonly unknown[]): Promise<void> {
    const name = `${this.list} ${filter.option}`;
    const matches = (record: unknown, value: string) => (filter.match === 'exact'
      ? readPath(record, filter.field) === value
      : JSON.stringify(record).toLowerCase().includes(value.toLowerCase()));
    const sample = records
      .map((record) => ({ record, value: readPath(record, filter.field) }))
      .find((s): s is { record: unknown; value: string } => typeof s.value === 'string' && s.value !== '' && records.some((other) => !matches(other, s.value as string)));
    if (!sample) {
      this.skip(checks, filter.option, filter.option, `no record on the first page has a ${filter.field} the others lack`);
      return;
    }
    const wanted = identity(sample.record);
    const others = records.filter((record) => !matches(record, sample.value)).map(identity);
    const works = async (param: string) => {
      const found = await this.records({ [param]: sample.value });
      const ids = new Set(found?.map(identity));
      return found !== undefined && ids.has(wanted) && others.some((other) => !ids.has(other));
    };
    const configured = this.names[filter.option]!;
    const shown = filter.match === 'exact' ? `${configured}=${sample.value}` : `${configured}=${JSON.stringify(sample.value)} (a ${filter.field})`;
    if (await works(configured)) {
      checks.push({ name, ok: true, detail: `${shown} narrows the list to the record it came from` });
      return;
    }
    const candidates = [filter.option, snakeCase(filter.option), ...filter.alternatives];
    const found = await firstWorking(candidates, configured, works);
    checks.push(failed(name, this.settingKey(filter.option), `"${configured}" is not understood: ${shown} does not narrow the list`, found, candidates));
  }
}

async function probeErrors(target: ProbeTarget, dialect: Dialect, refusal: ProbeAnswer | undefined): Promise<Check[]> {
  const checks: Check[] = [];
  const path = MISSING_CARD_PATH;
  const missing = await target.get(path, {});
  if (missing.status < 400 || !isObject(missing.body)) {
    const why = missing.status < 400 ? `answered ${missing.status}` : `answered ${missing.status} without a JSON object`;
    checks.push({ name: 'error body', ok: false, skipped: true, detail: `cannot tell: GET ${path} (a card that does not exist) ${why}` });
  } else {
    const strings = stringLeaves(missing.body);
    for (const [key, what, looksRight, pattern] of [
      ['message', 'message', (v: string) => /\s/.test(v), /message|detail|description|title|reason/i],
      ['code', 'code', (v: string) => /^[A-Za-z][A-Za-z0-9_.-]*$/.test(v) && !/\s/.test(v), /code|kind|type|error/i],
    ] as const) {
      const at = dialect.errors[key];
      const value = readPath(missing.body, at);
      if (typeof value === 'string' && value !== '') {
        checks.push({ name: `error ${what}`, ok: true, detail: `${key === 'message' ? 'errors.message' : 'errors.code'} "${at}" holds ${JSON.stringify(value)} (activation of a card that does not exist, ${missing.status})` });
        continue;
      }
      const candidates = strings.filter(([, v]) => looksRight(v));
      const found = (candidates.find(([p]) => pattern.test(p.split('.').pop()!)) ?? candidates[0])?.[0];
      checks.push(failed(`error ${what}`, `errors.${key}`, `nothing at errors.${key} "${at}" in the ${missing.status} body of a card that does not exist`, found, []));
    }
  }
  if (!refusal || !isObject(refusal.body)) {
    checks.push({ name: 'error fields', ok: false, skipped: true, detail: 'cannot tell: no probe was refused with a JSON body (the refusal of an over-large page size shows them)' });
    return checks;
  }
  const at = dialect.errors.fields;
  if (isFieldList(readPath(refusal.body, at))) {
    checks.push({ name: 'error fields', ok: true, detail: `errors.fields "${at}" holds the field errors of a refused page size (${refusal.status})` });
    return checks;
  }
  const found = arrayLeaves(refusal.body).find((path) => isFieldList(readPath(refusal.body, path)));
  if (found) checks.push(failed('error fields', 'errors.fields', `nothing at errors.fields "${at}" in the ${refusal.status} body of a refused page size`, found, []));
  else checks.push({ name: 'error fields', ok: false, skipped: true, detail: `cannot tell: the ${refusal.status} body of a refused page size carries no field errors` });
  return checks;
}

/** A failed check, with the value that worked when one did. */
function failed(name: string, setting: string, detail: string, found: string | number | undefined, tried: readonly string[]): Check {
  if (found !== undefined) {
    return { name, ok: false, setting, suggestion: found, detail, fix: `cardctl profile set ${setting} ${found} (${typeof found === 'number' ? 'the deployment serves that' : 'that works'})` };
  }
  const others = tried.length ? ` (none of ${[...new Set(tried)].join(', ')} works)` : '';
  return { name, ok: false, setting, detail, fix: `cardctl profile set ${setting} VALUE, the deployment's own${others}` };
}

/** The first name besides `configured` for which `works` holds (one try each, in order). */
async function firstWorking(candidates: readonly string[], configured: string, works: (name: string) => Promise<boolean>): Promise<string | undefined> {
  for (const name of new Set(candidates)) {
    if (name !== configured && await works(name)) return name;
  }
  return undefined;
}

function recordsOf(body: unknown): unknown[] | undefined {
  const data = readPath(body, 'data');
  return Array.isArray(data) ? data : undefined;
}

/** What tells two records apart: their id, else their whole JSON. */
function identity(record: unknown): string {
  const id = readPath(record, 'id') ?? readPath(record, '_id');
  return typeof id === 'string' || typeof id === 'number' ? String(id) : JSON.stringify(record);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}


function isFieldList(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0 && value.every((item) => isObject(item) && typeof item.field === 'string');
}

/** [dotted path, value] of every leaf of an object (not inside arrays, nor `data`), a few levels deep. */
function leaves(body: unknown, prefix = '', depth = 0): Array<[string, unknown]> {
  if (!isObject(body) || depth > 4) return [];
  return Object.entries(body).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (!prefix && key === 'data') return [];
    return isObject(value) ? leaves(value, path, depth + 1) : [[path, value] as [string, unknown]];
  });
}

function numberLeaves(body: unknown): string[] {
  return leaves(body).filter(([path, value]) => isCount(value) && path !== 'statusCode').map(([path]) => path);
}

function stringLeaves(body: unknown): Array<[string, string]> {
  return leaves(body).filter((leaf): leaf is [string, string] => typeof leaf[1] === 'string' && leaf[1] !== '');
}

function arrayLeaves(body: unknown): string[] {
  return leaves(body).filter(([, value]) => Array.isArray(value)).map(([path]) => path);
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
