// Pieces every route module uses: the success envelope and paging.
import type { Pagination } from '../../api/schemas.js';

export function envelope<T>(message: string, data: T): { statusCode: 200; message: string; data: T } {
  return { statusCode: 200, message, data };
}

export function pagination(page: number, limit: number, total: number): Pagination {
  return { page, limit, total, pages: Math.ceil(total / limit) };
}

/** page/limit after validation (the schema fills the defaults 1 and 20). */
export function paging(query: { page?: number; limit?: number }): { page: number; limit: number; offset: number } {
  const page = query.page ?? 1;
  const limit = query.limit ?? 20;
  return { page, limit, offset: (page - 1) * limit };
}


/**
 * A list envelope around records that are already the API's JSON, as the store keeps them. Only
 * the transaction list uses it: a page of 100 transactions is ~450 KB, and parsing it only to
 * serialize it again costs ~2 ms of the ~6 ms the page takes, on the path `tx list --all` walks
 * page after page (BENCHMARKS.md, 100,000 transactions). Every other response is an object the
 * route returns.
 */
export function storedListBody(message: string, records: string[], page: Pagination): string {
  return `${JSON.stringify({ statusCode: 200, message }).slice(0, -1)},"data":[${records.join(',')}],"pagination":${JSON.stringify(page)}}`;
}
