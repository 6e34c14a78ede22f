// What passing time does to transactions: an authorization's hold expires after its program's
// hold period (the switch's clock, runtime.ts); a transaction still awaiting its answer long
// after any webhook deadline was abandoned by a sandbox that stopped, and fails (96).
import type { Transaction } from '../../api/schemas.js';
import { responseMessage } from '../../iso8583/codes.js';
import { buildResponse } from '../../webhook-protocol/reply.js';
import type { StoredTransaction } from '../store/transactions.js';
import * as ledger from './ledger.js';
import { cardAndProgramOf } from './plan.js';
import { hop } from './record.js';
import { applyEvent } from './states.js';
import type { SwitchStore } from './store-port.js';

/** The default hold period of an authorization, hours (a program's `holdPeriodHours` replaces it). */
export const DEFAULT_HOLD_PERIOD_HOURS = 168;

/** Releases an approved authorization's hold (reason expiry): `reversed`. 409 when it holds nothing. */
export function expireHold(store: SwitchStore, institutionId: string, id: string, at: Date): Transaction {
  store.atomically(() => ledger.expire(store, institutionId, id, at));
  return store.get(institutionId, id)!.record;
}

/** Expires every approved authorization older than its program's hold period at `at`; how many. */
export function expireDue(store: SwitchStore, at: Date): number {
  let count = 0;
  for (const { institutionId, id } of store.approvedAuthorizationsBefore(at.toISOString())) {
    const stored = store.get(institutionId, id);
    const hours = (stored ? cardAndProgramOf(store, institutionId, stored.record).program?.holdPeriodHours : undefined) ?? DEFAULT_HOLD_PERIOD_HOURS;
    if (!stored || at.getTime() - Date.parse(stored.record.createdAt) < hours * 3_600_000) continue;
    try { expireHold(store, institutionId, id, at); count += 1; } catch { /* moved on meanwhile */ }
  }
  return count;
}

/**
 * How long an answer may be awaited before its transaction counts as abandoned: far past the
 * webhook deadline, so only a sandbox stopped in the middle of an exchange leaves one behind.
 */
export const ABANDONED_AFTER_MS = 60_000;

function isAbandoned(stored: StoredTransaction, at: Date): boolean {
  return stored.state === 'awaiting' && at.getTime() - Date.parse(stored.record.createdAt) > ABANDONED_AFTER_MS;
}

/**
 * An abandoned transaction fails (96) through the table, like one whose webhook timed out; an
 * abandoned reversal gives its original back (reversing → approved).
 */
function settleAbandoned(store: SwitchStore, institutionId: string, id: string, at: Date): void {
  const reason = 'no answer was applied: the sandbox stopped while awaiting it';
  let originalId: string | undefined;
  const settled = applyEvent(store, institutionId, id, 'answer-declines', at, (record, stored) => {
    originalId = stored.originalId;
    const response = buildResponse(record.originalMessage, '96');
    record.response = response;
    record.responseCode = '96';
    record.timestamps.institutionToService = hop(at, 'inbound', `institution to service: ${reason}`);
    record.timestamps.serviceToSwitch = hop(at, 'outbound', `service to switch: ${response['0'] ?? ''} 96 ${responseMessage('96')}`);
    return { record };
  });
  if (!settled.ok || !originalId) return;
  const abandoned = store.get(institutionId, id)!;
  if (abandoned.kind === 'reversal') applyEvent(store, institutionId, originalId, 'reversal-declined', at, (record) => ({ record }));
  if (abandoned.kind === 'refund') ledger.giveBackRefund(store, institutionId, abandoned, at);
}

/** Settles a transaction, or the reversal of it in progress, if abandoned. */
export function settleAbandonedAround(store: SwitchStore, institutionId: string, id: string, at: Date): void {
  const current = store.get(institutionId, id);
  if (!current) return;
  if (isAbandoned(current, at)) return settleAbandoned(store, institutionId, id, at);
  const inFlight = current.state === 'reversing' ? store.awaitingReversalOf(institutionId, id) : undefined;
  if (inFlight && isAbandoned(inFlight, at)) settleAbandoned(store, institutionId, inFlight.record.id, at);
}

/** Settles every transaction abandoned before `at` (a sandbox starting on a database another one left). */
export function recoverAbandoned(store: SwitchStore, at: Date): number {
  const before = new Date(at.getTime() - ABANDONED_AFTER_MS).toISOString();
  const rows = store.awaitingBefore(before);
  for (const row of rows) store.atomically(() => settleAbandoned(store, row.institutionId, row.id, at));
  return rows.length;
}
