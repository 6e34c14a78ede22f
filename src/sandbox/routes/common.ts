// Pieces every route module uses: the success envelope and paging.
import type { Pagination } from '../../api/schemas.js';
import { ApiError } from '../errors.js';

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
 * A change based on a version the client read (`If-Match: "<version>"`, as the CLI sends it) is
 * refused with a 409 CONFLICT when the record has moved since, so a concurrent change is never
 * overwritten unseen. `*` matches any version; without If-Match the change applies to whatever
 * is current (as the reference API does). Cards are versioned by `__v`, OAuth applications by
 * `updatedAt`.
 */
export function assertIfMatch(what: string, version: string | number, ifMatch: string | string[] | undefined): void {
  if (ifMatch === undefined) return;
  const tags = (Array.isArray(ifMatch) ? ifMatch.join(',') : ifMatch).split(',')
    .map((tag) => tag.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1'));
  if (tags.includes('*') || tags.includes(String(version))) return;
  const asked = tags.filter(Boolean).join(', ').slice(0, 40) || '(empty)';
  throw new ApiError(409, 'CONFLICT', `${what} has changed since it was read: If-Match asks for version ${asked}, it is at version ${version}`,
    [{ field: 'If-Match', message: `does not match the current version ${version}` }], { version });
}
