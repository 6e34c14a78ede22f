// Repeats (0101, 0201, 0421, …) the network sends on its own initiative: answered as the first
// time, and in forward mode sent to the webhook too.
import type { ResponseMode, SimulateEnvelope } from '../../api/schemas.js';
import type { SwitchMessage } from '../../iso8583/message.js';
import { repeatMtiOf, sameAnswer } from '../../webhook-protocol/reply.js';
import { DomainError } from '../errors.js';
import type { SwitchDeps } from './deps.js';
import { exchangeWithWebhook, type Exchange } from './exchange.js';
import { subjectOf } from './exchange-record.js';
import { cardAndProgramOf } from './plan.js';
import { answerOf, repeatEntry, resentMessage, rewrite } from './record.js';

/**
 * A repeat (0101, 0421, …): the network resends a message whose answer it did not see, same
 * STAN and RRN. The sandbox answers as it did the first time (no second hold); in forward mode
 * the webhook gets the repeat too, and whether its answer agreed is recorded on the original.
 */
export async function simulateRepeat(deps: SwitchDeps, institutionId: string, id: string, mode: ResponseMode): Promise<SimulateEnvelope> {
  const now = deps.now;
  const stored = deps.store.get(institutionId, id);
  if (!stored) throw new DomainError('not-found', `transaction ${id} not found`);
  if (stored.state === 'awaiting') throw new DomainError('conflict', `transaction ${id} is still awaiting its answer; a repeat is answered once it has one`);
  const mti = repeatMtiOf(stored.record.mti);
  let responseCode = stored.record.responseCode;
  let faults: string[] = [];
  let replyMti: string | undefined;
  let sent: Exchange | undefined;
  let reply: SwitchMessage | undefined;
  if (mode === 'forward') {
    const { card, program } = cardAndProgramOf(deps.store, institutionId, stored.record);
    const message: SwitchMessage = { ...resentMessage(stored.record.originalMessage, card?.pan), '0': mti };
    // The first send was attempt 1; each repeat so far one more.
    const subject = subjectOf(institutionId, stored.record, (stored.record.repeats?.length ?? 0) + 2, mti, stored.originalId);
    const exchange = await exchangeWithWebhook({ ...deps, background: undefined }, program, message, id, institutionId, subject);
    responseCode = exchange.outcome.ok ? exchange.outcome.reply['39'] ?? '' : '';
    reply = exchange.outcome.ok ? exchange.outcome.reply : undefined;
    replyMti = exchange.outcome.ok ? exchange.outcome.reply['0'] : undefined;
    faults = exchange.faults;
    sent = exchange;
  }
  const record = deps.store.atomically(() => rewrite(deps.store, institutionId, id, now(), (current) => {
    // Agreed: the webhook's first answer again (code, approval code, amount); against the network's
    // own answer (a stand-in) or with no reply, the same code.
    const agreed = reply && !current.standIn ? sameAnswer(reply, current.response) : responseCode === current.responseCode;
    current.repeats = [...(current.repeats ?? []), { ...repeatEntry(now(), mti, agreed, responseCode), ...(replyMti ? { replyMti } : {}), ...(faults.length > 0 ? { webhookFaults: faults } : {}) }];
  }))!;
  return answerOf(record, { exchange: sent });
}
