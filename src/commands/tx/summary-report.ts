// The work of `tx summary`: aggregate the pages as they arrive, then print a terminal report or
// rows. Loaded by the command's run() only, so its tables stay off the start-up path.
import type { Transaction } from '../../api/schemas.js';
import type { Context } from '../../contract/context.js';
import { currencyInfo, formatAmount, minorToDecimal } from '../../iso8583/amount.js';
import { isApproved, responseMessage } from '../../iso8583/codes.js';
import type { Column } from '../../output/renderer.js';
import { apiQuery, keeps, pastSince, type SummaryGroupBy, type TransactionFilter } from './options.js';

export async function runSummary(ctx: Context, { filter: input, by }: { filter: TransactionFilter; by: SummaryGroupBy }): Promise<void> {
  const { listAllTransactions } = await import('../../api/transactions.js');
  const output = ctx.output();
  await output.ready();
  const client = await ctx.client();
  const aggregator = new SummaryAggregator(by);
  for await (const response of listAllTransactions(client, apiQuery(input), ctx.signal)) {
    const page = response.data ?? [];
    for (const tx of page) if (keeps(tx, input)) aggregator.add(tx);
    if (pastSince(page, input.since)) break;
  }
  const summary = aggregator.result({ since: input.since, until: input.until });
  if (output.format === 'json' || output.format === 'raw') {
    await output.record(summary);
    return;
  }
  if (output.format !== 'table' || !ctx.io.stdoutIsTTY || output.settings.quiet) {
    await output.list(summary.groups, groupColumns, { idPath: 'key' });
    return;
  }
  printSummary(ctx, summary);
}

export interface AmountTotal {
  /** ISO 4217 numeric code, as on the transaction. */
  currency: string;
  /** Alphabetic code, when known. */
  code: string;
  /** Minor units, as decimal text (exact). */
  minor: string;
  /** Major units with the currency's exponent ("1500.00"). */
  amount: string;
}

export interface SummaryGroup {
  key: string;
  count: number;
  approved: number;
  declined: number;
  approvalRate: number;
  amounts: AmountTotal[];
}

export interface Summary {
  since?: string;
  until?: string;
  by: SummaryGroupBy;
  total: number;
  /** Same as total. */
  count: number;
  approved: number;
  declined: number;
  approvalRate: number;
  amounts: AmountTotal[];
  groups: SummaryGroup[];
  responseCodes: Array<{ code: string; meaning: string; approved: boolean; count: number }>;
}

type SummaryRecord = Partial<Transaction> & { createdAt?: string };

interface Tally {
  count: number;
  approved: number;
  amounts: Map<string, bigint>;
}

const newTally = (): Tally => ({ count: 0, approved: 0, amounts: new Map() });

/** Aggregates transactions one at a time: memory grows with the groups, never with the records. */
export class SummaryAggregator {
  private readonly all = newTally();
  private readonly groups = new Map<string, Tally>();
  private readonly codes = new Map<string, number>();

  constructor(readonly by: SummaryGroupBy) {}

  add(tx: SummaryRecord): void {
    const code = responseCodeOf(tx);
    const approved = isApproved(code);
    const key = groupKey(tx, this.by);
    let group = this.groups.get(key);
    if (!group) this.groups.set(key, (group = newTally()));
    for (const tally of [this.all, group]) {
      tally.count++;
      if (approved) tally.approved++;
      const minor = tx.amounts?.amount;
      if (typeof minor === 'string' && /^\d{1,15}$/.test(minor)) {
        const currency = tx.amounts?.currency || '566';
        tally.amounts.set(currency, (tally.amounts.get(currency) ?? 0n) + BigInt(minor));
      }
    }
    const codeKey = code ?? 'none';
    this.codes.set(codeKey, (this.codes.get(codeKey) ?? 0) + 1);
  }

  result(window: { since?: Date; until?: Date } = {}): Summary {
    const groups = [...this.groups].map(([key, tally]) => ({ key, ...figures(tally) }));
    if (this.by === 'hour') groups.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    else groups.sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : 1));
    return {
      since: window.since?.toISOString(),
      until: window.until?.toISOString(),
      by: this.by,
      total: this.all.count,
      ...figures(this.all),
      groups,
      responseCodes: [...this.codes]
        .map(([code, count]) => ({ code, meaning: code === 'none' ? 'no response' : responseMessage(code), approved: isApproved(code), count }))
        .sort((a, b) => b.count - a.count || (a.code < b.code ? -1 : 1)),
    };
  }
}

function figures(tally: Tally) {
  return {
    count: tally.count,
    approved: tally.approved,
    declined: tally.count - tally.approved,
    approvalRate: tally.count ? Math.round((tally.approved / tally.count) * 10_000) / 10_000 : 0,
    amounts: [...tally.amounts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([currency, minor]) => amountTotal(currency, minor)),
  };
}

function amountTotal(currency: string, minor: bigint): AmountTotal {
  const info = currencyInfo(currency);
  return { currency, code: info?.code ?? currency, minor: minor.toString(), amount: minorToDecimal(minor, info?.digits ?? 2) };
}

function responseCodeOf(tx: SummaryRecord): string | undefined {
  return tx.responseCode || (tx.response as Record<string, string> | undefined)?.['39'] || undefined;
}

export function groupKey(tx: SummaryRecord, by: SummaryGroupBy): string {
  switch (by) {
    case 'channel':
      return tx.transactionChannel?.channelType || 'unknown';
    case 'responseCode':
      return responseCodeOf(tx) ?? 'none';
    case 'merchant':
      return tx.merchantId || 'unknown';
    case 'hour': {
      const at = Date.parse(tx.createdAt ?? '');
      return Number.isNaN(at) ? 'unknown' : `${new Date(at).toISOString().slice(0, 13)}:00Z`;
    }
  }
}

const groupColumns: Column<SummaryGroup>[] = [
  { header: 'Group', path: 'key' },
  { header: 'Count', path: 'count' },
  { header: 'Approved', path: 'approved' },
  { header: 'Declined', path: 'declined' },
  { header: 'Approval rate', path: 'approvalRate' },
  { header: 'Amounts', path: 'amounts', csv: (v) => (v as AmountTotal[]).map((a) => `${a.code} ${a.amount}`).join('; ') },
];


const BAR = '█';
const SPARKS = '▁▂▃▄▅▆▇█';

function money(amounts: AmountTotal[]): string {
  return amounts.map((a) => formatAmount(a.minor, a.currency)).join(', ');
}

function percent(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

/** Counts per hour from the first to the last hour, empty hours as zero. */
export function sparkline(groups: Array<{ key: string; count: number }>): string {
  const hours = groups.filter((g) => g.key !== 'unknown').map((g) => ({ at: Date.parse(g.key), count: g.count }));
  if (hours.length === 0) return '';
  const first = Math.min(...hours.map((h) => h.at));
  const last = Math.max(...hours.map((h) => h.at));
  const counts: number[] = [];
  for (let at = first; at <= last && counts.length < 24 * 31; at += 3_600_000) counts.push(hours.find((h) => h.at === at)?.count ?? 0);
  const max = Math.max(...counts);
  return counts.map((n) => (n === 0 ? ' ' : SPARKS[Math.min(SPARKS.length - 1, Math.floor((n / max) * (SPARKS.length - 1)))])).join('');
}

function printSummary(ctx: Context, summary: Summary): void {
  const { style, io } = ctx;
  const width = io.columns && io.columns > 0 ? io.columns : 80;
  const window = summary.since ? `since ${summary.since.replace('T', ' ').replace(/:\d\d\.\d+Z$/, 'Z')}` : 'all time';
  const out = (line = '') => io.out(`${line}\n`);
  out(`${style.bold('Transactions')} ${style.dim(window)}: ${summary.total} · approved ${summary.approved} (${rateColour(ctx, summary.approvalRate)}) · declined ${summary.declined}`);
  if (summary.amounts.length) out(`${style.bold('Amounts')}: ${money(summary.amounts)}`);
  if (summary.total === 0) return;
  out();
  out(style.bold(`By ${summary.by}${summary.by === 'hour' ? ' (UTC)' : ''}`));
  if (summary.by === 'hour') out(`  ${style.ok(sparkline(summary.groups))}`);
  const keyWidth = Math.max(...summary.groups.map((g) => displayKey(g.key, summary.by).length));
  const countWidth = Math.max(...summary.groups.map((g) => String(g.count).length));
  const max = Math.max(...summary.groups.map((g) => g.count));
  const barRoom = Math.max(10, Math.min(40, width - keyWidth - countWidth - 40));
  for (const g of summary.groups) {
    const bar = BAR.repeat(Math.max(1, Math.round((g.count / max) * barRoom)));
    out(`  ${displayKey(g.key, summary.by).padEnd(keyWidth)}  ${String(g.count).padStart(countWidth)}  ${style.ok(bar.padEnd(barRoom))}  ${rateColour(ctx, g.approvalRate, 6)} approved  ${style.dim(money(g.amounts))}`);
  }
  out();
  out(style.bold('Response codes'));
  const codeMax = Math.max(...summary.responseCodes.map((c) => c.count));
  const meaningWidth = Math.min(40, Math.max(...summary.responseCodes.map((c) => c.meaning.length)));
  for (const c of summary.responseCodes) {
    const meaning = c.meaning.length > meaningWidth ? `${c.meaning.slice(0, meaningWidth - 1)}…` : c.meaning;
    const bar = BAR.repeat(Math.max(1, Math.round((c.count / codeMax) * 20)));
    const paint = c.approved ? style.ok : style.error;
    out(`  ${paint(c.code.padEnd(4))} ${meaning.padEnd(meaningWidth)}  ${String(c.count).padStart(countWidth)}  ${paint(bar)}`);
  }
}

function displayKey(key: string, by: SummaryGroupBy): string {
  return by === 'responseCode' && key !== 'none' ? `${key} ${responseMessage(key)}` : key;
}

function rateColour(ctx: Context, rate: number, width = 0): string {
  const text = percent(rate).padStart(width);
  return rate >= 0.9 ? ctx.style.ok(text) : rate >= 0.7 ? ctx.style.warn(text) : ctx.style.error(text);
}
