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
 * asked for at a time, once the caller is done with the one before, so memory holds one page.
 */
export async function* paginate<T>(
  client: ApiClient,
  path: string,
  query: Record<string, string | number | boolean | undefined>,
  limit = 100,
  signal?: AbortSignal,
): AsyncGenerator<ListPageResponse<T>> {
  const list = listOfPath(path);
  const names = (params: Record<string, unknown>) => (list ? listQuery(client.dialect, list, params) : params) as ApiRequest['query'];
  let previousFirst: string | undefined;
  for (let page = 1; ; page++) {
    const response = await client.request<T[]>({ method: 'GET', path, query: names({ ...query, page, limit }), signal });
    const records = Array.isArray(response.data) ? response.data : [];
    const firstKey = records.length > 0 ? recordKey(records[0]) : undefined;
    if (firstKey !== undefined && firstKey === previousFirst) throw pageNotFollowed(list, page);
    previousFirst = firstKey;
    yield { ...response, count: records.length, firstKey, records: () => records };
    const pages = response.pagination?.pages;
    if (pages !== undefined ? page >= pages : records.length < limit) return;
    if (records.length === 0) return;
  }
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
