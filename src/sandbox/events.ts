// What happens in a sandbox, as it happens: a transaction stored or changed, a webhook exchange
// recorded. The live inspector streams these (server-sent events); nothing else depends on them,
// so a listener that throws or is slow never touches the switch.
import { EventEmitter } from 'node:events';
import type { Transaction, WebhookExchange } from '../api/schemas.js';

export interface SandboxEventMap {
  transaction: [Transaction];
  exchange: [WebhookExchange];
}

export type SandboxEvents = EventEmitter<SandboxEventMap>;

export function createSandboxEvents(): SandboxEvents {
  const events = new EventEmitter<SandboxEventMap>({ captureRejections: false });
  // Each open inspector page is a listener; the bound is the inspector's, not Node's default 10.
  events.setMaxListeners(0);
  return events;
}

/** Tells the listeners; one that throws is the listener's fault and never fails the switch's work. */
export function tell(events: SandboxEvents | undefined, emit: (events: SandboxEvents) => void): void {
  if (!events) return;
  try {
    emit(events);
  } catch {
    // The switch's work is done and stored; a listener's failure is not its failure.
  }
}
