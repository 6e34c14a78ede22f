// Pieces every route module uses: the success envelope and paging.
import type { FastifyReply } from 'fastify';
import { DEFAULT_DIALECT, type Dialect } from '../../api/dialect.js';
import { setPath } from '../../core/object-path.js';
import type { Pagination } from '../../api/schemas.js';

export function envelope<T>(message: string, data: T): { statusCode: 200; message: string; data: T } {
  return { statusCode: 200, message, data };
}

export function pagination(page: number, limit: number, total: number): Pagination {
  return { page, limit, total, pages: Math.ceil(total / limit) };
}

/**
 * The paging members of a list body as the dialect has them: today's `pagination` object by
 * default, the page count and total at the dialect's paths, or nothing for `short-page`.
 */
function pagingMembers(paging: Dialect['paging'], page: Pagination): Record<string, unknown> {
  if (paging.style === 'short-page') return {};
  const defaults = DEFAULT_DIALECT.paging;
  if (paging.pages === defaults.pages && paging.total === defaults.total) return { pagination: page };
  const members: Record<string, unknown> = {};
  setPath(members, paging.pages, page.pages);
  setPath(members, paging.total, page.total);
  return members;
}

/**
 * A list's body: the envelope around a page of records, with paging as the dialect has it. Typed
 * as the default dialect's body, which the route's schema and /openapi.json document.
 */
export function listEnvelope<T>(dialect: Dialect, message: string, data: T[], page: Pagination): ReturnType<typeof envelope<T[]>> & { pagination: Pagination } {
  return { ...envelope(message, data), ...pagingMembers(dialect.paging, page) } as ReturnType<typeof envelope<T[]>> & { pagination: Pagination };
}

/** page/limit after validation (the schema fills the defaults 1 and 20). */
export function paging(query: { page?: number; limit?: number }): { page: number; limit: number; offset: number } {
  const page = query.page ?? 1;
  const limit = query.limit ?? 20;
  return { page, limit, offset: (page - 1) * limit };
}

