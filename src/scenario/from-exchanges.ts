// A scenario written from recorded traffic (`webhook exchanges --as-scenario`): each message the
// network sent on a caller's behalf becomes a step of `simulate run` in forward mode, as it was
// asked (kind, card, amount, flow, channel, currency, the original it belongs to, the webhook
// faults it met), expecting what was seen: its response code and, once every message of an
// original is in the file, the original's lifecycle amounts. The exchange's verdict is kept too,
// as what it must be: a message no fault spoiled must be `accepted` — so a file exported from a
// handler that gave no valid answer fails against it until it is fixed (and then expects no
// response code: the one seen was the network's stand-in, not the handler's). With spacing, a `wait` step keeps
// the time between two messages. Written as YAML, every value quoted as JSON (valid YAML).
import type { Lifecycle, Transaction, WebhookExchange } from '../api/schemas.js';

/** What of a stored transaction a step is written from. */
export type RecordedTransaction = Pick<Transaction, 'id' | 'mti' | 'processingCode' | 'responseCode' | 'amount' | 'createdAt' | 'messageKind' | 'originalTransactionId' | 'requestedAmount'> & {
  amounts?: { currency: string };
  card?: { id: string } | null;
  transactionChannel?: { channelType: string };
};

/** What of a lifecycle the expectations need. */
export type RecordedLifecycle = Pick<Lifecycle, 'originalTransactionId' | 'amounts'> & { messages: Array<{ transactionId: string }> };

export interface RecordedMessage {
  transaction: RecordedTransaction;
  /** Its first exchange with the webhook; none when it was answered in stub mode. */
  exchange?: Pick<WebhookExchange, 'at' | 'faults'> & Partial<Pick<WebhookExchange, 'verdict'>>;
}

export interface ScenarioSource {
  name: string;
  /** Oldest first. */
  messages: RecordedMessage[];
  /** The lifecycle of each original, by its id. */
  lifecycles: ReadonlyMap<string, RecordedLifecycle>;
  keepSpacing: boolean;
}

/** Kinds the network sends on its own: they follow from the faults of a step, never a step of their own. */
export const NETWORK_KINDS: ReadonlySet<string> = new Set(['stand-in-advice', 'timeout-reversal']);
const LIFECYCLE_STEP_KINDS = new Set(['increment', 'completion', 'refund']);
const AMOUNTS = ['authorized', 'held', 'captured', 'released', 'refunded'] as const;
/** Gaps shorter than this are not kept: the run itself takes about as long. */
const MIN_WAIT_MS = 50;
const MAX_WAIT_MS = 3_600_000;

/** The kind of step a recorded message replays as. */
export function stepKindOf(tx: RecordedTransaction): string {
  return tx.messageKind ?? (tx.mti.startsWith('04') ? 'reversal' : tx.mti.startsWith('02') ? 'financial' : 'authorization');
}

/** The id of the original a message belongs to (itself for an original). */
export function originalIdOf(tx: RecordedTransaction, lifecycle?: RecordedLifecycle): string {
  return tx.originalTransactionId ?? lifecycle?.originalTransactionId ?? tx.id;
}

export function scenarioFromExchanges(source: ScenarioSource): { yaml: string; steps: number } {
  const cards = [...new Set(source.messages.map((m) => m.transaction.card?.id).filter((id): id is string => Boolean(id)))];
  const cardVar = (id: string | undefined) => (cards.length === 1 ? 'card' : `card${cards.indexOf(id ?? '') + 1}`);
  const stepOf = new Map<string, string>();
  const counts = new Map<string, number>();
  const lastOfOriginal = new Map<string, string>();
  for (const { transaction } of source.messages) lastOfOriginal.set(originalOf(transaction, source), transaction.id);
  // Originals a message of which got no usable answer: their amounts then were the network's stand-in, not the handler's.
  const unanswered = new Set(source.messages.filter(({ exchange }) => isUnanswered(exchange)).map(({ transaction }) => originalOf(transaction, source)));

  const lines: string[] = [];
  let previousAt: number | undefined;
  let steps = 0;
  for (const { transaction: tx, exchange } of source.messages) {
    const kind = stepKindOf(tx);
    const n = (counts.get(kind) ?? 0) + 1;
    counts.set(kind, n);
    const id = `${kind}${n}`;
    stepOf.set(tx.id, id);
    const at = Date.parse(exchange?.at ?? tx.createdAt);
    if (source.keepSpacing && previousAt !== undefined && at - previousAt >= MIN_WAIT_MS) {
      lines.push('  - intent: wait', `    for: ${q(`${Math.min(at - previousAt, MAX_WAIT_MS)}ms`)}`);
      steps += 1;
    }
    previousAt = at;

    const keys: Array<[string, unknown]> = [['id', id], ['intent', kind]];
    const original = originalOf(tx, source);
    const amount = tx.requestedAmount ?? tx.amount;
    const currency = tx.amounts?.currency;
    if (kind === 'reversal' || LIFECYCLE_STEP_KINDS.has(kind)) {
      // An original not in the file is named by its id: it must still be in the sandbox.
      keys.push(['originalTx', stepOf.has(original) ? `{{steps.${stepOf.get(original)}.transactionId}}` : original], ['amount', amount]);
      if (kind === 'reversal') keys.push(['flow', flowOf(tx.processingCode)]);
    } else {
      keys.push(['card', `{{vars.${cardVar(tx.card?.id)}}}`], ['amount', amount], ['flow', flowOf(tx.processingCode)]);
      if (tx.transactionChannel?.channelType) keys.push(['channel', tx.transactionChannel.channelType]);
      if (kind === 'advice') keys.push(['networkCode', tx.responseCode]);
    }
    if (currency) keys.push(['currency', currency]);
    keys.push(['forward', exchange !== undefined]);
    const faults = exchange ? faultSpecOf(exchange.faults) : '';
    if (faults) keys.push(['webhookFaults', faults]);

    // A message no fault spoiled gets a usable answer from a sound handler: `accepted`, whatever was seen.
    const unspoiled = exchange?.verdict !== undefined && exchange.faults.length === 0;
    const expect: Array<[string, unknown]> = isUnanswered(exchange)
      ? [['exchanges.0.verdict', 'accepted']]
      : [['responseCode', tx.responseCode], ...(unspoiled ? [['exchanges.0.verdict', 'accepted'] as [string, unknown]] : [])];
    const lifecycle = source.lifecycles.get(original);
    if (lifecycle && !unanswered.has(original) && lastOfOriginal.get(original) === tx.id && lifecycle.messages.every((m) => source.messages.some((s) => s.transaction.id === m.transactionId))) {
      for (const name of AMOUNTS) expect.push([`lifecycle.amounts.${name}`, lifecycle.amounts[name]]);
    }
    const [first, ...rest] = keys;
    lines.push(`  - ${first![0]}: ${q(first![1])}`, ...rest.map(([key, value]) => `    ${key}: ${q(value)}`));
    lines.push(`    expect: { ${expect.map(([key, value]) => `${key}: ${q(value)}`).join(', ')} }`);
    steps += 1;
  }

  const header = [
    `# Written by \`cardctl webhook exchanges --as-scenario\` from ${source.messages.length} recorded message${source.messages.length === 1 ? '' : 's'}.`,
    '# Replays them through the sandbox in forward mode (the card program\'s webhook decides), expecting',
    '# the response codes seen then and, where every message of an original is here, its lifecycle amounts;',
    '# a message no fault spoiled must be accepted by the handler (exchanges.0.verdict), as seen or not.',
    '#',
    '#   cardctl simulate run FILE',
  ];
  const vars = cards.map((card, i) => `  ${cards.length === 1 ? 'card' : `card${i + 1}`}: ${q(card)}`);
  const yaml = [...header, `name: ${q(source.name)}`, ...(vars.length ? ['vars:', ...vars] : []), 'steps:', ...lines, ''].join('\n');
  return { yaml, steps };
}

/** An exchange no fault spoiled that got no usable answer: a sound handler would have given one. */
function isUnanswered(exchange: RecordedMessage['exchange']): boolean {
  return exchange?.verdict !== undefined && exchange.faults.length === 0 && exchange.verdict !== 'accepted';
}

function originalOf(tx: RecordedTransaction, source: ScenarioSource): string {
  if (tx.originalTransactionId) return tx.originalTransactionId;
  for (const [id, lifecycle] of source.lifecycles) if (lifecycle.messages.some((m) => m.transactionId === tx.id)) return id;
  return tx.id;
}

/** A processing code's flow, as the simulate flags name it. */
function flowOf(processingCode: string): string {
  if (processingCode.startsWith('01')) return 'cash_withdrawal';
  if (processingCode.startsWith('31')) return 'balance_inquiry';
  return 'purchase';
}

/** The webhook faults a message met (as the sandbox records them: `delay 120ms`, `reset`, …) as a spec that repeats them. */
export function faultSpecOf(faults: readonly string[]): string {
  const parts: string[] = [];
  for (const fault of faults) {
    const [name, value] = fault.split(' ', 2);
    if ((name === 'delay' || name === 'deadline' || name === 'signature') && value) parts.push(`${name}=${value}`);
    else if (name === 'duplicate' || name === 'reset' || name === 'reply-lost' || name === 'garbage') parts.push(`${name}=1`);
  }
  return parts.join(',');
}

/** A YAML scalar: JSON's form (valid YAML), so no value is read as another type. */
function q(value: unknown): string {
  return JSON.stringify(value);
}
