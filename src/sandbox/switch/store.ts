// The simulator's view of the sandbox store (src/sandbox/store/): every SQL statement stays
// there; this only adapts method names and adds the STAN sequence, one per institution and day
// (kept in the meta table, incremented inside the caller's write transaction): a shared counter
// would tell one institution how many transactions the others ran. Each transaction stored or
// changed is told to `events` once its write transaction commits (never one rolled back).
import type { Transaction } from '../../api/schemas.js';
import { tell, type SandboxEvents } from '../events.js';
import type { Store } from '../store/index.js';
import type { SwitchStore } from './store-port.js';
import { retrievalReferenceNumber } from '../../webhook-protocol/request.js';
import { COUNTED_STATES } from './states.js';

export function switchStore(store: Store, { firstStan = 1, events }: { firstStan?: number; events?: SandboxEvents } = {}): SwitchStore {
  // Changes made inside atomically(), told once it commits; outside one, told at once.
  let uncommitted: Transaction[] | undefined;
  const changed = (record: Transaction) => {
    if (!events || events.listenerCount('transaction') === 0) return;
    if (uncommitted) uncommitted.push(structuredClone(record));
    else tell(events, (e) => e.emit('transaction', structuredClone(record)));
  };
  return {
    institution: (id) => store.institutions.get(id),
    cardById: (institutionId, cardId) => store.cards.get(institutionId, cardId),
    cardByPan: (pan) => store.cards.findByPan(pan),
    program: (institutionId, programId) => store.cardPrograms.get(institutionId, programId),
    atomically(work, options) {
      if (uncommitted) return store.transaction(work, options);
      uncommitted = [];
      try {
        const result = store.transaction(work, options);
        const committed = uncommitted;
        uncommitted = undefined;
        for (const record of committed) tell(events, (e) => e.emit('transaction', record));
        return result;
      } finally {
        uncommitted = undefined;
      }
    },
    sync: () => store.sync(),
    nextStan(institutionId, day) {
      const key = `switch.stan.${institutionId}.${day}`;
      // A day without a counter yet (or a database from before counters were per institution)
      // continues after the institution's own highest STAN of that day, from firstStan at least.
      // That day's messages are those whose RRN starts with its year digit and day of the year.
      const rrnDay = retrievalReferenceNumber(new Date(`${day}T00:00:00.000Z`), '0').slice(0, 4);
      const next = (store.meta.get<number>(key) ?? Math.max(store.transactions.lastStan(institutionId, rrnDay), firstStan - 1)) + 1;
      store.meta.set(key, next);
      return next;
    },
    usage(cardId, channel, day, currency) {
      const used = store.transactions.dailyUsage(cardId, channel, day, currency, COUNTED_STATES);
      return { count: used.count, amountMinor: BigInt(used.amountMinor) };
    },
    insert(record, index) {
      store.transactions.insert(record, index);
      changed(record);
    },
    changeState(change) {
      const moved = store.transactions.changeStateIf(change);
      if (moved) changed(change.record);
      return moved;
    },
    get: (institutionId, id) => store.transactions.getStored(institutionId, id),
    findByStanRrn: (institutionId, stan, rrn) => store.transactions.findByStanRrn(institutionId, stan, rrn),
    awaitingReversalOf: (institutionId, originalId) => store.transactions.awaitingReversalOf(institutionId, originalId),
    awaitingLinked: (institutionId, originalId, kind) => store.transactions.awaitingLinked(institutionId, originalId, kind),
    awaitingBefore: (createdAt) => store.transactions.awaitingBefore(createdAt),
    linked: (institutionId, originalId) => store.transactions.linked(institutionId, originalId),
    approvedAuthorizationsBefore: (createdAt) => store.transactions.approvedAuthorizationsBefore(createdAt),
    standInApprovedToday: (cardId, day, currency) => store.transactions.standInApprovedToday(cardId, day, currency),
    unacknowledgedAdvices: () => store.transactions.unacknowledgedAdvices(),
  };
}
