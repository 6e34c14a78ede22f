// Messages the network sends the webhook to tell it, not to ask it: advices (0120, 0220: the
// network's decision in field 39; a stand-in advice also says in field 44 why the network stood
// in) and reversals that stand (0420: a reversal the webhook did not answer, a timeout
// reversal). The webhook acknowledges them with any valid reply and cannot change them; until it
// does, each is sent again as a repeat (0121, 0221, 0421: same STAN, RRN and fields), on the
// schedule of routes/simulate.ts. The record's `advice` tracks the deliveries.
import type { Transaction } from '../../api/schemas.js';
import type { SwitchMessage } from '../../iso8583/message.js';
import { repeatMtiOf } from '../../webhook-protocol/reply.js';
import type { NoAnswerCause } from './webhook.js';

/** The field of a stand-in advice naming why the network stood in (ISO 8583: additional response data). */
export const STAND_IN_CAUSE_FIELD = '44';

/** An advice of the network's decision: field 39 (unless overrides set one), and 44 after a stand-in. */
export function adviceOf(message: SwitchMessage, decision: string, standInCause?: NoAnswerCause): SwitchMessage {
  return { ...message, '39': message['39'] ?? decision, ...(standInCause ? { [STAND_IN_CAUSE_FIELD]: standInCause } : {}) };
}

export type Delivery = NonNullable<Transaction['advice']>;

/** A message the webhook has yet to acknowledge: `attempts` made so far, the last one's result. */
export function awaitingAcknowledgement(attempts: number, lastResult: string): Delivery {
  return { acknowledged: false, attempts, lastResult };
}

/**
 * What a delivery attempt sends: the message as recorded, as a repeat once an attempt was made
 * (0120 → 0121, 0420 → 0421), with the clear PAN and without track 2.
 */
export function deliveryMessage(record: Transaction, delivery: Delivery, pan: string | undefined): SwitchMessage {
  const message: SwitchMessage = { ...record.originalMessage, ...(pan ? { '2': pan } : {}) };
  delete message['35'];
  if (delivery.attempts > 0) message['0'] = repeatMtiOf(message['0'] ?? record.mti);
  return message;
}
