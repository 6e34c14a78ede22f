// Transaction endpoints. Returns data (with the raw body for `-o raw`) and never prints.
import { CliError, NotFoundError } from '../core/errors.js';
import type { ApiClient, ApiResponse } from './client.js';
import { paginate, type ListPageResponse } from './paging.js';
import { LIST_PATHS, listQuery, type ListParams } from './dialect.js';
import type { Transaction } from './schemas.js';

const TRANSACTIONS = LIST_PATHS.transactions;

/** merchantId, terminalId, cardStatus, transactionStatus, page, limit: named as the client's dialect has them when sent. */
export type ListTransactionsParams = ListParams<'transactions'>;

/** GET /institutions/transactions: one page. */
export function listTransactions(client: ApiClient, params: ListTransactionsParams = {}, signal?: AbortSignal): Promise<ApiResponse<Transaction[]>> {
  return client.request<Transaction[]>({ method: 'GET', path: TRANSACTIONS, query: listQuery(client.dialect, 'transactions', params), signal });
}

/** Every page, one response at a time. */
export function listAllTransactions(client: ApiClient, params: Omit<ListTransactionsParams, 'page'> = {}, signal?: AbortSignal): AsyncIterableIterator<ListPageResponse<Transaction>> {
  const { limit, ...query } = params;
  return paginate<Transaction>(client, TRANSACTIONS, query, limit ?? client.dialect.maxPageSize, signal);
}

export interface GetTransactionResult extends ApiResponse<Transaction> {
  /** How it was found: the by-id route (sandbox extension) or a scan of the list. */
  via: 'route' | 'scan';
}

/**
 * One transaction. The reference has no "get transaction" endpoint; the sandbox adds
 * GET /institutions/transactions/{id}. When a deployment answers that route with a 404 that is
 * not the sandbox's "transaction … not found", the route is taken to be missing and the list is
 * scanned page by page (newest first) instead.
 */
export async function getTransaction(
  client: ApiClient,
  id: string,
  options: { signal?: AbortSignal; onScan?: (page: number) => void } = {},
): Promise<GetTransactionResult> {
  try {
    const response = await client.request<Transaction>({ method: 'GET', path: `${TRANSACTIONS}/${encodeURIComponent(id)}`, signal: options.signal });
    if (response.data && typeof response.data === 'object' && !Array.isArray(response.data)) return { ...response, via: 'route' };
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    if (isRecordNotFound(error)) throw notFoundError(id);
  }
  let page = 0;
  for await (const response of listAllTransactions(client, {}, options.signal)) {
    options.onScan?.(++page);
    const found = (response.data ?? []).find((tx) => tx.id === id || tx._id === id);
    if (found) return { ...response, data: found, raw: JSON.stringify(found), via: 'scan' };
  }
  throw notFoundError(id);
}

/** The sandbox's by-id route says "transaction <id> not found": the route exists, the record does not. */
function isRecordNotFound(error: CliError): boolean {
  const said = error.apiMessage ?? '';
  return /\btransaction\b.*\bnot found\b/i.test(said) && !/no such endpoint|route/i.test(said);
}

function notFoundError(id: string): NotFoundError {
  return new NotFoundError(`transaction ${id} not found`, {
    hint: 'list recent ones with `cardctl tx list`; transactions of other institutions are not visible',
    status: 404,
  });
}
