// Card import (`POST /util/cards/import`, API key) and the lookup that keeps retries exactly-once.
import type { ApiClient, ApiResponse } from './client.js';
import { paginate } from './paging.js';
import { LIST_PATHS } from './dialect.js';
import { importReference } from '../core/field-rules.js';
import type { Card, ImportCardBody } from './schemas.js';

export const IMPORT_PATH = '/util/cards/import';

/** Imports one card. Not retried by the client: the importer decides (see src/bulk/import-runner.ts). */
export function importCard(client: ApiClient, body: ImportCardBody, signal?: AbortSignal): Promise<ApiResponse<Partial<Card> | undefined>> {
  return client.request<Partial<Card> | undefined>({
    method: 'POST',
    path: IMPORT_PATH,
    body,
    auth: 'apiKey',
    idempotent: false,
    signal,
  });
}

/** The id of a card in an API answer (`id`, `_id`, or `card.id`). */
export function cardIdOf(data: unknown): string | undefined {
  if (!data || typeof data !== 'object') return undefined;
  const record = data as Record<string, unknown>;
  for (const key of ['id', '_id', 'cardId']) if (typeof record[key] === 'string' && record[key]) return record[key] as string;
  if (record.card && typeof record.card === 'object') return cardIdOf(record.card);
  return undefined;
}

/**
 * Looks an imported card up by its realId through Get Cards (bearer token): the card whose
 * realId is that value, or whose referenceCode is `import:<realId>` (never a created card's own
 * reference: the two namespaces are apart, src/core/field-rules.ts). Undefined when none is there.
 */
export async function findImportedCard(client: ApiClient, realId: string, signal?: AbortSignal): Promise<Partial<Card> | undefined> {
  // The search matches substrings (realId R-1 also finds R-10…R-1999): read every page, not the first.
  for await (const page of paginate<Partial<Card> & { realId?: string }>(client, LIST_PATHS.cards, { search: realId }, client.dialect.maxPageSize, signal)) {
    const cards = Array.isArray(page.data) ? page.data : [];
    const card = cards.find((c) => c.realId === realId || c.referenceCode === importReference(realId));
    if (card) return card;
  }
  return undefined;
}
