// The OutputShapes several commands share (CommandDefinition.output): each from the columns and
// the response schema that already describe the records, so a field is named in one place.
// Loaded only when a command runs with --fields, --jq or --template.
import { Card, InstitutionUser, OAuthApplication, SimulateResult, Transaction, WebhookExchange } from '../api/schemas.js';
import type { BulkSummary } from '../bulk/runner.js';
import type { OutputShape } from '../core/output-format.js';
import { cardColumns, cardRows } from '../output/columns/cards.js';
import { oauthRows } from '../output/columns/oauth.js';
import { simulateRows, transactionColumns, transactionRows } from '../output/columns/transactions.js';
import { userRows } from '../output/columns/users.js';
import { webhookExchangeColumns } from '../output/columns/webhook-exchanges.js';
import { outputShape, type ShapePart } from '../output/shape.js';

/** The keys of a summary a command builds itself; the compiler holds the list to the type. */
export function summaryKeys<T>(keys: Record<keyof T & string, true>): ShapePart {
  return { keys: Object.keys(keys) };
}

const BULK_SUMMARY = summaryKeys<BulkSummary>({ done: true, already: true, skipped: true, failed: true, rows: true, seconds: true, report: true });

/** A card verb: the card it answers with, or the summary of a bulk run (--from-file, --where). */
export const cardShape = (): OutputShape => outputShape(Card, cardRows, cardColumns, BULK_SUMMARY);

/** A simulation: its result (and the computed columns outcome, amount), or a lifecycle message's transaction. */
export const simulationShape = (): OutputShape => outputShape(SimulateResult, simulateRows, Transaction, transactionRows, transactionColumns);

export const oauthShape = (...more: ShapePart[]): OutputShape => outputShape(OAuthApplication, oauthRows, ...more);

export const userShape = (): OutputShape => outputShape(InstitutionUser, userRows);

export const exchangeShape = (...more: ShapePart[]): OutputShape => outputShape(WebhookExchange, webhookExchangeColumns, ...more);
