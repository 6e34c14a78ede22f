// Reading a whole list page by page, as the deployment's dialect pages it.
import { ServerError } from '../core/errors.js';
import { isObject } from '../core/is-object.js';
import { listOfPath, listQuery, type ListName } from './dialect.js';
import type { ApiClient } from './client.js';
import type { ApiRequest } from './request.js';
import type { ApiResponse } from './responses.js';

/** A page of a list as paginate() yields it: the answer, parsed and masked, and its records. */
export interface ListPageResponse<T> extends ApiResponse<T[]> {
  /** How many records the page holds. */
  count: number;
  /** What tells the first record apart, its id (else its whole text): paginate() compares it with the previous page's. */
  firstKey: string | undefined;
  /** The page's records (`data` when it is an array, else none). */
  records(): Iterable<T>;
}

/**
 * Streams every page of a list endpoint (`path`, one of LIST_PATHS; `query` by the API's default
 * option names), as the client's dialect pages it: with `metadata`, up to the page count the
 * body gives (a body without one ends at the first page shorter than `limit`); with
 * `short-page`, up to the first page shorter than `limit`. A page that starts with the record
 * the previous page started with means the page parameter is not the deployment's: that stops
 * with an error naming the setting, rather than reading the same page forever. One page is
 * asked for at a time, once the caller is done with the one before.
 */
export function paginate<T>(
  client: ApiClient,
  path: string,
  query: Record<string, string | number | boolean | undefined>,
  limit = 100,
  signal?: AbortSignal,
): AsyncIterableIterator<ListPageResponse<T>> {
  return new Pages<T>(client, path, query, limit, signal);
}

/**
 * paginate()'s pages. Not an async generator: a generator's frame keeps the page it last yielded
 * while it fetches the next (V8 keeps dead locals of a suspended frame), so two pages would be
 * alive at once; here each page lives only in the call of next() that read it.
 */
class Pages<T> implements AsyncIterableIterator<ListPageResponse<T>> {
  private readonly list: ListName | undefined;
  private page = 0;
  private previousFirst: string | undefined;
  private finished = false;

  constructor(
    private readonly client: ApiClient,
    private readonly path: string,
    private readonly query: Record<string, string | number | boolean | undefined>,
    private readonly limit: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.list = listOfPath(path);
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<ListPageResponse<T>, undefined>> {
    if (this.finished) return { done: true, value: undefined };
    const page = ++this.page;
    const params = { ...this.query, page, limit: this.limit };
    const query = (this.list ? listQuery(this.client.dialect, this.list, params) : params) as ApiRequest['query'];
    let response: ApiResponse<T[]>;
    try {
      response = await this.client.request<T[]>({ method: 'GET', path: this.path, query, signal: this.signal });
    } catch (error) {
      this.finished = true;
      throw error;
    }
    const records = Array.isArray(response.data) ? response.data : [];
    const firstKey = records.length > 0 ? recordKey(records[0]) : undefined;
    if (firstKey !== undefined && firstKey === this.previousFirst) {
      this.finished = true;
      throw pageNotFollowed(this.list, page);
    }
    this.previousFirst = firstKey;
    const pages = response.pagination?.pages;
    this.finished = records.length === 0 || (pages !== undefined ? page >= pages : records.length < this.limit);
    return { done: false, value: { ...response, count: records.length, firstKey, records: () => records } };
  }

  async return(): Promise<IteratorResult<ListPageResponse<T>, undefined>> {
    this.finished = true;
    return { done: true, value: undefined };
  }
}

/**
 * Hands each page of `pages` to `onPage`, asking for the next only once `onPage` is done (or
 * stopping when it answers false). Each page lives only within the call that reads and hands it
 * over: a `for await` loop would keep the page before alive while the next is fetched.
 */
export async function forEachPage<P>(pages: AsyncIterable<P>, onPage: (page: P) => Promise<boolean | void>): Promise<void> {
  const iterator = pages[Symbol.asyncIterator]();
  let more = true;
  try {
    while (more) more = await handOver(iterator, onPage);
  } finally {
    if (more) await iterator.return?.();
  }
}

async function handOver<P>(iterator: AsyncIterator<P>, onPage: (page: P) => Promise<boolean | void>): Promise<boolean> {
  const next = await iterator.next();
  return !next.done && (await onPage(next.value)) !== false;
}

/** What tells records apart: the id, else the whole record. */
function recordKey(record: unknown): string {
  const id = isObject(record) ? record.id ?? record._id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : JSON.stringify(record);
}

function pageNotFollowed(list: ListName | undefined, page: number): ServerError {
  const setting = `params.${list ?? '<list>'}.page`;
  return new ServerError(`page ${page} of the list started with the same record as page ${page - 1}: the deployment does not take the page number as this profile sends it (${setting})`, {
    code: 'PAGING_MISMATCH',
    hint: `set the deployment's name for it with \`cardctl profile set ${setting} NAME\` (\`cardctl doctor --deployment\` checks every list setting)`,
  });
}
