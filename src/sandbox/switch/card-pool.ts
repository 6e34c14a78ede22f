// The card pool of `simulate load --export artillery`: the run's cards as the switch puts them
// into a webhook message (clear PAN, expiry, service code, account: track 2 is made of them),
// and the webhook settings of their programs without the secrets. Full card numbers leave the
// sandbox here only for a caller that may read the programs' webhook settings (the route checks
// it), as a replay sends them only to such a caller's webhook.
import type { CardPool } from '../../api/schemas.js';
import { DomainError } from '../errors.js';
import { cardDataOf, programIdOf } from './plan.js';
import type { SwitchStore } from './store-port.js';

export function cardPool(store: SwitchStore, institutionId: string, cardIds: readonly string[]): CardPool {
  const programIds = new Set<string>();
  const cards = cardIds.map((id) => {
    const stored = store.cardById(institutionId, id);
    if (!stored) throw new DomainError('not-found', `card ${id} not found`);
    const cardProgram = programIdOf(stored.card);
    programIds.add(cardProgram);
    return { id, ...cardDataOf(stored), cardProgram };
  });
  const programs = [...programIds].map((id) => {
    const config = store.program(institutionId, id)?.webHookConfig;
    return { id, webhook: { url: config?.url ?? '', type: config?.type ?? 'http', header: config?.header ?? '' } };
  });
  return { cards, programs };
}
