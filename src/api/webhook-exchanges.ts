// The sandbox's exchange log (GET /sandbox/webhook-exchanges, a sandbox extension): every HTTP
// call of the switch to the webhook, as recorded, and its replay. Returns data, never prints.
import { NotFoundError } from '../core/errors.js';
import type { ApiClient, ApiResponse } from './client.js';
import { paginate, type ListPageResponse } from './paging.js';
import type { WebhookExchange } from './schemas.js';

const EXCHANGES = '/sandbox/webhook-exchanges';

export interface ListWebhookExchangesParams {
  /** The exchanges of this transaction and of the messages linked to it. */
  transactionId?: string;
  /** Only those the network did not take (refused, no answer). */
  failed?: boolean;
  /** ISO 8601: only those sent at or after it. */
  since?: string;
  limit?: number;
  page?: number;
}

function query(params: ListWebhookExchangesParams): Record<string, string | number | boolean | undefined> {
  const { transactionId, failed, since, limit, page } = params;
  return { transactionId, failed: failed ? true : undefined, since, limit, page };
}

/** One page, newest first. */
export function listWebhookExchanges(client: ApiClient, params: ListWebhookExchangesParams = {}, signal?: AbortSignal): Promise<ApiResponse<WebhookExchange[]>> {
  return client.request<WebhookExchange[]>({ method: 'GET', path: EXCHANGES, query: query(params), signal });
}

/** Every page, newest first. */
export function listAllWebhookExchanges(client: ApiClient, params: Omit<ListWebhookExchangesParams, 'page'> = {}, signal?: AbortSignal): AsyncIterableIterator<ListPageResponse<WebhookExchange>> {
  const { limit, ...rest } = params;
  return paginate<WebhookExchange>(client, EXCHANGES, query(rest), limit ?? 100, signal);
}

/**
 * The sandbox's "webhook exchange <id> not found" as one line and a hint (the generic mapping
 * would say "not found: … not found"); any other error, a missing route included, as it is.
 */
function exchangeNotFound(id: string) {
  return (error: unknown): never => {
    if (error instanceof NotFoundError && /\bwebhook exchange\b.*\bnot found\b/i.test(error.apiMessage ?? '')) {
      throw new NotFoundError(`webhook exchange ${id} not found`, {
        hint: 'list them with `cardctl webhook exchanges`; the sandbox keeps them in memory (gone after a restart), and only your institution\'s',
        status: 404,
      });
    }
    throw error;
  };
}

export interface ReplayOptions {
  /** Another http(s) URL than the program's webhook. */
  to?: string;
  /** Sign with the original's timestamp (tests a handler's replay protection). */
  keepTimestamp?: boolean;
}

/** Sends a recorded request again; the new exchange, linked by replayOf. */
export function replayWebhookExchange(client: ApiClient, id: string, options: ReplayOptions = {}, signal?: AbortSignal): Promise<ApiResponse<WebhookExchange>> {
  const body = { ...(options.to !== undefined ? { to: options.to } : {}), ...(options.keepTimestamp ? { keepTimestamp: true } : {}) };
  return client.request<WebhookExchange>({ method: 'POST', path: `${EXCHANGES}/${encodeURIComponent(id)}/replay`, body, signal }).catch(exchangeNotFound(id));
}
