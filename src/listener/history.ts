// What `webhook listen` remembers of the messages it received: a line per exchange for GET
// /exchanges, and the first answer given to each message for its repeats. Oldest first out,
// bounded in count and in size (HISTORY_BOUND), so a long run or large posts cannot grow it
// without end.
import type { SwitchMessage } from '../iso8583/message.js';
import { firstMtiOf, PARTIAL_APPROVAL_CODE } from '../webhook-protocol/reply.js';
import { HISTORY_BOUND } from './behaviours.js';

export type HistoryBound = { exchanges: number; bytes: number };

/** An exchange as GET /exchanges lists it. */
export interface LoggedExchange {
  stan?: string | undefined;
  rrn?: string | undefined;
  mti?: string | undefined;
  status: number;
  signature: 'valid' | 'invalid' | 'unchecked';
  responseCode?: string | undefined;
  decidedBy?: string | undefined;
  repeat?: 'consistent' | 'inconsistent' | undefined;
}

/** What a repeat is answered from: the first answer's code, approval code and (partial approval) amount. */
export type FirstAnswer = { '4'?: string; '38'?: string; '39'?: string };

/** What of an answer its repeats need: the code, the approval code, and the amount of a partial approval. */
function firstAnswerOf(message: SwitchMessage): FirstAnswer {
  return {
    ...(message['39'] !== undefined ? { '39': message['39'] } : {}),
    ...(message['38'] !== undefined ? { '38': message['38'] } : {}),
    ...(message['39'] === PARTIAL_APPROVAL_CODE && message['4'] !== undefined ? { '4': message['4'] } : {}),
  };
}

export interface Entry {
  /** The message's key when it has a STAN and an RRN: what its repeats share. */
  key?: string;
  log?: LoggedExchange;
  /** The first answer to this message, once given (undefined when it got none). */
  answer: Promise<FirstAnswer | undefined>;
  /** Gives the answer (the first call counts). */
  answered(answer: SwitchMessage | undefined): void;
  bytes: number;
}

/**
 * The key of a message and its repeats: STAN, RRN and the message it is or repeats (0101 and
 * 0100 share one). None without a STAN or an RRN: such a message is never taken for a repeat.
 */
export function repeatKey(message: SwitchMessage): string | undefined {
  const stan = message['11'] ?? '';
  const rrn = message['37'] ?? '';
  if (stan === '' || rrn === '') return undefined;
  return JSON.stringify([stan, rrn, firstMtiOf(message['0'] ?? '')]);
}

export class ExchangeHistory {
  private readonly entries = new Set<Entry>();
  private readonly firsts = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly bound: HistoryBound = HISTORY_BOUND) {}

  /** A message arrives: its entry, and the entry of the earlier message it repeats, if remembered. */
  arrive(key: string | undefined): { entry: Entry; first?: Entry } {
    let resolve!: (answer: FirstAnswer | undefined) => void;
    const answer = new Promise<FirstAnswer | undefined>((settle) => { resolve = settle; });
    let given = false;
    const entry: Entry = {
      ...(key !== undefined ? { key } : {}), answer, bytes: 0,
      answered: (message) => {
        if (given) return;
        given = true;
        const kept = message && firstAnswerOf(message);
        resolve(kept);
        if (kept && this.entries.has(entry)) this.add(entry, JSON.stringify(kept).length);
      },
    };
    const first = key === undefined ? undefined : this.firsts.get(key);
    if (key !== undefined && !first) this.firsts.set(key, entry);
    this.add(entry, key?.length ?? 0);
    return first ? { entry, first } : { entry };
  }

  /** The exchange of `entry` is over (an entry of its own when the message was not one). */
  finish(entry: Entry | undefined, log: LoggedExchange): void {
    const kept = entry ?? this.arrive(undefined).entry;
    kept.log = log;
    kept.answered(undefined);
    if (this.entries.has(kept)) this.add(kept, JSON.stringify(log).length);
  }

  /** The exchanges with that STAN and RRN, oldest first. */
  logsOf(stan: string, rrn: string): LoggedExchange[] {
    const out: LoggedExchange[] = [];
    for (const { log } of this.entries) if (log && log.stan === stan && log.rrn === rrn) out.push(log);
    return out;
  }

  private add(entry: Entry, bytes: number): void {
    entry.bytes += bytes;
    this.bytes += bytes;
    this.entries.add(entry);
    for (const oldest of this.entries) {
      if (this.entries.size <= this.bound.exchanges && this.bytes <= this.bound.bytes) break;
      this.entries.delete(oldest);
      this.bytes -= oldest.bytes;
      if (oldest.key !== undefined && this.firsts.get(oldest.key) === oldest) this.firsts.delete(oldest.key);
    }
  }
}
