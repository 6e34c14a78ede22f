import type { Transaction } from '../../api/schemas.js';
import { DEFAULT_DIALECT } from '../../api/dialect.js';
import { defineCommand } from '../../contract/command.js';
import { UsageError } from '../../core/errors.js';
import { validatePaging } from '../../core/validate.js';
import { apiQuery, keeps, parseTransactionFilters, TRANSACTION_FILTERS } from './options.js';

/** How far back each poll looks for transactions stored late (out of createdAt order). */
export const LOOKBACK_MS = 10_000;
const PAGE_SIZE = 100;

type TailRecord = Pick<Transaction, 'id' | 'createdAt'>;

/**
 * The cursor of `tx tail`: what was seen, by id, within a window behind the newest createdAt.
 * A poll reads pages (newest first) until `reached()` says a page went past the window; `accept()`
 * then returns the records not seen before, oldest first. Offset paging under inserts only
 * shifts records to later pages, so reading to the window leaves no gap, and ids remove the
 * duplicates.
 */
export class TailCursor {
  private readonly seen = new Map<string, number>();
  private newest = Number.NEGATIVE_INFINITY;

  /** @param floor records created before this (ms) are never printed: the start, or --since. */
  constructor(private floor: number, private readonly lookbackMs = LOOKBACK_MS) {}

  private get horizon(): number {
    return Math.max(this.floor, this.newest - this.lookbackMs);
  }

  /** True when a page whose oldest record is `oldest` reaches behind the window: stop paging. */
  reached(oldest: TailRecord): boolean {
    return time(oldest) < this.horizon;
  }

  /** Marks records as already shown (the baseline at start) and moves the floor up to them. */
  baseline(records: TailRecord[]): void {
    for (const record of records) {
      this.seen.set(record.id, time(record));
      this.newest = Math.max(this.newest, time(record));
    }
    if (records.length > 0) this.floor = Math.max(this.floor, this.newest);
  }

  accept<R extends TailRecord>(records: R[]): R[] {
    const horizon = this.horizon;
    const fresh: R[] = [];
    for (const record of records) {
      const at = time(record);
      if (this.seen.has(record.id) || Number.isNaN(at) || at < horizon) continue;
      this.seen.set(record.id, at);
      fresh.push(record);
    }
    for (const record of fresh) this.newest = Math.max(this.newest, time(record));
    const keepFrom = this.horizon;
    for (const [id, at] of this.seen) if (at < keepFrom) this.seen.delete(id);
    return fresh.sort((a, b) => time(a) - time(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}

function time(record: TailRecord): number {
  return Date.parse(record.createdAt);
}

export function parseInterval(value: string | undefined): number {
  if (value === undefined) return 2_000;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0.1 || seconds > 3600) {
    throw new UsageError(`invalid --interval "${value}": give seconds between 0.1 and 3600, e.g. --interval 5`);
  }
  return Math.round(seconds * 1000);
}

export default defineCommand({
  name: 'tail',
  mcp: 'never',
  summary: 'follow new transactions as they happen',
  aliases: ['follow'],
  description: `Prints each new transaction once, as it arrives, until Ctrl-C (exit 0). Polls the list every
--interval seconds and reads pages back to where the last poll ended, so a burst larger than a page is
not lost. Rows have no header; -o ndjson gives one JSON object a line, --jq and --template apply per
transaction. Takes the filters of \`tx list\`; --since also prints the transactions since then first.`,
  flags: {
    ...TRANSACTION_FILTERS,
    interval: { type: 'string', value: 'seconds', description: 'seconds between polls (default 2)' },
    limit: { type: 'string', value: 'n', description: `page size of each poll, 1-${DEFAULT_DIALECT.maxPageSize} or the profile's maxPageSize (default ${PAGE_SIZE} or that maximum)` },
    wide: { type: 'boolean', description: 'more columns, as in `tx list --wide`' },
  },
  examples: ['cardctl tx tail', 'cardctl tx tail --status failed', 'cardctl tx tail -o ndjson | jq -c .responseCode', "cardctl tx tail --since 10m --template '{{.createdAt}} {{.responseCode}} {{money .amounts.amount .amounts.currency}}'"],
  parse: ({ opts, now }) => ({ filter: parseTransactionFilters(opts, now), interval: parseInterval(opts.interval), limit: opts.limit, wide: opts.wide }),
  async run(ctx, { filter: input, interval, wide, ...opts }) {
    // The page size's bound is the profile's maxPageSize: checked once the profile is read.
    const { limit } = validatePaging(opts, ctx.dialect().maxPageSize);
    const pageSize = limit ?? Math.min(PAGE_SIZE, ctx.dialect().maxPageSize);
    const [{ listTransactions }, { transactionColumns }, { setTimeout: sleep }, errors] = await Promise.all([
      import('../../api/transactions.js'),
      import('../../output/columns/transactions.js'),
      import('node:timers/promises'),
      import('../../core/errors.js'),
    ]);
    const output = ctx.output({ wide });
    await output.ready();
    const client = await ctx.client();
    const query = apiQuery(input);
    const cursor = new TailCursor(input.since ? input.since.getTime() : Number.NEGATIVE_INFINITY);
    const stream = output.stream(transactionColumns, { live: true });
    const signal = ctx.signal;

    /** One poll: pages newest first until the cursor's window is reached. */
    const poll = async (firstOnly: boolean): Promise<Transaction[]> => {
      const records: Transaction[] = [];
      for (let page = 1; ; page++) {
        const response = await listTransactions(client, { ...query, page, limit: pageSize }, signal);
        const items = response.data ?? [];
        records.push(...items);
        const oldest = items[items.length - 1];
        const pages = response.pagination?.pages;
        if (firstOnly || !oldest || items.length < pageSize || cursor.reached(oldest) || (pages !== undefined && page >= pages)) break;
      }
      return records;
    };

    try {
      const first = await poll(!input.since);
      if (input.since) await stream.write(cursor.accept(first).filter((tx) => keeps(tx, input)));
      else cursor.baseline(first);
      if (ctx.io.stderrIsTTY) ctx.log.info('following new transactions; Ctrl-C to stop', 'dim');
      for (;;) {
        await sleep(interval, undefined, { signal });
        try {
          const fresh = cursor.accept(await poll(false));
          await stream.write(fresh.filter((tx) => keeps(tx, input)));
        } catch (error) {
          // A dropped connection or a 5xx: say so and try again at the next poll.
          if (signal.aborted || !(error instanceof errors.NetworkError || error instanceof errors.ServerError)) throw error;
          ctx.log.warn(`${error.message}; retrying in ${interval / 1000} s`);
        }
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
    // Ctrl-C is how tail ends: finish the output and exit 0.
    await stream.end();
  },
});
