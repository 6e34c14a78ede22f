// How a webhook exchange looks (`webhook exchanges`, `tx show --exchanges`, `webhook replay`):
// list columns, and the request and reply of one exchange as text.
import type { WebhookExchange } from '../../api/schemas.js';
import { escapeControls } from '../format.js';
import type { Column } from '../renderer.js';
import type { Style } from '../style.js';

type Exchange = Partial<WebhookExchange>;

const VERDICT_STYLE = { accepted: 'ok', refused: 'error', 'no-answer': 'warn' } as const;

function verdictText(value: unknown, style?: Style): string {
  const text = typeof value === 'string' ? value : '';
  const tone = VERDICT_STYLE[text as keyof typeof VERDICT_STYLE];
  return style && tone ? style[tone](text) : text;
}

// The default columns fit an 80-column terminal with the id whole (the replay needs it); the time
// of day only (json and csv have the whole date-time); --wide adds the rest.
export const webhookExchangeColumns: Column<Exchange>[] = [
  { header: 'ID', path: 'id', minWidth: 30 },
  { header: 'At', path: 'at', format: (value) => (typeof value === 'string' ? value.slice(11, 19) : ''), csv: (value) => String(value ?? '') },
  { header: 'Kind', path: 'kind' },
  { header: 'Verdict', path: 'verdict', format: (value, _record, style) => verdictText(value, style) },
  { header: 'Code', path: 'responseCode' },
  { header: 'Latency', path: 'latencyMs', format: (value) => (typeof value === 'number' ? `${value} ms` : '') },
  { header: 'Reason', path: 'reason' },
  { header: 'MTI', path: 'mti', wide: true },
  { header: 'Attempt', path: 'attempt', wide: true },
  { header: 'Status', path: 'response.status', wide: true, format: (value) => (value === undefined || value === null ? '-' : String(value)) },
  { header: 'Transaction', path: 'transactionId', wide: true },
  { header: 'Replay of', path: 'replayOf', wide: true },
  { header: 'Faults', path: 'faults', wide: true, format: (value) => (Array.isArray(value) ? value.join(' ') : ''), csv: (value) => (Array.isArray(value) ? value.join(' ') : '') },
  { header: 'URL', path: 'request.url', wide: true },
];

/** The request and the reply of one exchange as lines (the sandbox redacted them; control characters made visible here). */
export function exchangeLines(exchange: WebhookExchange): { request: string[]; reply: string[] } {
  const headers = (given: Record<string, string>) => Object.entries(given).map(([name, value]) => `${name}: ${value}`);
  const request = [`${exchange.request.method} ${exchange.request.url}`, ...headers(exchange.request.headers), '', ...JSON.stringify(exchange.request.body, null, 2).split('\n')];
  const response = exchange.response;
  const reply = response
    ? [`HTTP ${response.status}`, ...headers(response.headers), '', ...prettyBody(response.body).split('\n'), ...(response.truncated ? ['… (truncated)'] : [])]
    : [`(no reply: ${exchange.reason ?? 'nothing came back'})`];
  return { request: request.map(escapeControls), reply: reply.map(escapeControls) };
}

function prettyBody(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
