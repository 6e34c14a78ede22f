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

