// The log of webhook exchanges: every HTTP call of the switch to an institution's webhook, as
// recorded (switch/exchange-record.ts: secrets redacted, card numbers masked). In memory only,
// lost when the sandbox stops: a ring bounded by count and bytes, the oldest dropped first. Each
// entry also keeps the message as sent, in the clear, for `webhook replay`; it is never served
// and never written anywhere.
import type { WebhookExchange } from '../api/schemas.js';
import type { SwitchMessage } from '../iso8583/message.js';
import { tell, type SandboxEvents } from './events.js';

export interface ExchangeBounds {
  /** Most exchanges kept. */
  count: number;
  /** Most bytes kept: each record's JSON and its message in the clear. */
  bytes: number;
}

export const DEFAULT_EXCHANGE_BOUNDS: ExchangeBounds = { count: 10_000, bytes: 64 * 1024 * 1024 };

export interface LoggedExchange {
  institutionId: string;
  record: WebhookExchange;
  /** The message as sent, card number in the clear (replay only). */
  message: SwitchMessage;
  bytes: number;
}

export interface ExchangeQuery {
  institutionId: string;
  transactionId?: string;
  /** Only those the network did not take (refused, no answer). */
  failed?: boolean;
  /** Only those at or after this time. */
  since?: Date;
  limit: number;
  offset: number;
}

export class ExchangeLog {
  // Insertion order is age order: a Map iterates oldest first and deletes in O(1).
  private readonly entries = new Map<string, LoggedExchange>();
  private bytes = 0;

  constructor(readonly bounds: ExchangeBounds = DEFAULT_EXCHANGE_BOUNDS, private readonly events?: SandboxEvents) {}

  add(institutionId: string, record: WebhookExchange, message: SwitchMessage): void {
    const bytes = Buffer.byteLength(JSON.stringify(record)) + Buffer.byteLength(JSON.stringify(message));
    this.entries.set(record.id, { institutionId, record, message, bytes });
    this.bytes += bytes;
    for (const [id, oldest] of this.entries) {
      if (this.entries.size <= this.bounds.count && this.bytes <= this.bounds.bytes) break;
      this.entries.delete(id);
      this.bytes -= oldest.bytes;
    }
    tell(this.events, (e) => e.emit('exchange', record));
  }

  /** The institution's exchange with that id (another institution's is not found). */
  get(institutionId: string, id: string): LoggedExchange | undefined {
    const entry = this.entries.get(id);
    return entry?.institutionId === institutionId ? entry : undefined;
  }

  /** A page of the institution's exchanges, newest first, and how many match. */
  list(query: ExchangeQuery): { records: WebhookExchange[]; total: number } {
    const since = query.since?.getTime();
    const matching: WebhookExchange[] = [];
    for (const { institutionId, record } of this.entries.values()) {
      if (institutionId !== query.institutionId) continue;
      if (query.transactionId !== undefined && record.transactionId !== query.transactionId && record.originalId !== query.transactionId) continue;
      if (query.failed && record.verdict === 'accepted') continue;
      if (since !== undefined && Date.parse(record.at) < since) continue;
      matching.push(record);
    }
    matching.reverse();
    return { records: matching.slice(query.offset, query.offset + query.limit), total: matching.length };
  }

  /** What is kept now. */
  size(): { count: number; bytes: number } {
    return { count: this.entries.size, bytes: this.bytes };
  }
}
