// How transactions look: list columns (`tx list`, --wide extras), the key/value rows of one
// transaction (`tx show`), and the simulator's summary rows (`simulate …`).
import type { SimulateResult, Transaction } from '../../api/schemas.js';
import { maskPan } from '../../core/redact.js';
import { currencyInfo, formatAmount, isField4, minorToDecimal } from '../../iso8583/amount.js';
import { intentOfMti, isApproved, responseMessage } from '../../iso8583/codes.js';
import { PARTIAL_APPROVAL_CODE } from '../../webhook-protocol/reply.js';
import type { Column } from '../renderer.js';
import type { Style } from '../style.js';

type TxRecord = Partial<Transaction> & Record<string, unknown>;

const INTENT_LABEL = { authorization: 'auth', financial: 'financial', reversal: 'reversal' } as const;

/** "0100 auth", "0420 reversal". */
export function messageLabel(tx: TxRecord): string {
  const mti = tx.mti ?? '';
  const intent = intentOfMti(mti);
  return intent ? `${mti} ${INTENT_LABEL[intent]}` : mti;
}

export function txCard(tx: TxRecord): string {
  const pan = tx.cardData?.pan || tx.card?.pan || '';
  return /^\d+$/.test(pan) ? maskPan(pan) : pan;
}

/** "₦1,500.00" from amounts (12-digit minor units + numeric currency), else the major amount. */
export function txAmount(tx: TxRecord): string {
  const minor = tx.amounts?.amount;
  if (typeof minor === 'string' && /^\d{1,12}$/.test(minor)) return formatAmount(minor, tx.amounts?.currency ?? '566');
  return tx.amount !== undefined ? String(tx.amount) : '';
}

/** "1500.00" for machines (csv, tsv), in major units of the transaction currency. */
export function txAmountDecimal(tx: TxRecord): string {
  const minor = tx.amounts?.amount;
  if (typeof minor === 'string' && /^\d{1,12}$/.test(minor)) return minorToDecimal(minor, currencyInfo(tx.amounts?.currency ?? '566')?.digits ?? 2);
  return tx.amount !== undefined ? String(tx.amount) : '';
}

export function txCurrency(tx: TxRecord): string {
  const numeric = tx.amounts?.currency ?? '';
  return currencyInfo(numeric)?.code ?? numeric;
}

/** "51 Insufficient funds". */
export function txResponse(tx: TxRecord): string {
  const code = tx.responseCode ?? tx.response?.['39'];
  return code ? `${code} ${responseMessage(code)}` : '';
}

export function colourResponse(text: string, code: string | undefined, style: Style): string {
  if (!code) return text;
  return isApproved(code) ? style.ok(text) : style.error(text);
}

const computed = (fn: (tx: TxRecord) => string, machine?: (tx: TxRecord) => string) => ({
  format: (_value: unknown, record: TxRecord) => fn(record),
  csv: (_value: unknown, record: TxRecord) => (machine ?? fn)(record),
});

export const transactionColumns: Column<TxRecord>[] = [
  { header: 'ID', path: 'id' },
  { header: 'Time', path: 'createdAt' },
  { header: 'Message', path: 'mti', ...computed(messageLabel, (tx) => tx.mti ?? '') },
  { header: 'Card', path: 'cardData.pan', ...computed(txCard) },
  { header: 'Amount', path: 'amounts.amount', ...computed(txAmount, txAmountDecimal) },
  {
    header: 'Response', path: 'responseCode',
    format: (_v, tx, style) => colourResponse(txResponse(tx), tx.responseCode, style),
    csv: (_v, tx) => tx.responseCode ?? '',
  },
  { header: 'Status', path: 'transactionStatus', status: true },
  { header: 'STAN', path: 'stan' },
  { header: 'RRN', path: 'rrn' },
  { header: 'Merchant', path: 'merchantId' },
  { header: 'Terminal', path: 'terminalId' },
  { header: 'Currency', path: 'amounts.currency', wide: true, ...computed(txCurrency) },
  { header: 'Channel', path: 'transactionChannel.channelType', wide: true },
  { header: 'Entry mode', path: 'transactionChannel.entryMode', wide: true },
  { header: 'Processing code', path: 'processingCode', wide: true },
  { header: 'Duration ms', path: 'duration', wide: true },
  { header: 'Reversal', path: 'reversalId', wide: true },
];

/** Key/value rows of one transaction (the `tx show` header block). */
export const transactionRows: Column<TxRecord>[] = [
  { header: 'ID', path: 'id' },
  { header: 'Message', path: 'mti', ...computed(messageLabel) },
  { header: 'Message type', path: 'messageType' },
  { header: 'Status', path: 'transactionStatus', status: true },
  { header: 'Response', path: 'responseCode', format: (_v, tx, style) => colourResponse(txResponse(tx), tx.responseCode, style) },
  { header: 'Amount', path: 'amounts.amount', ...computed(txAmount, txAmountDecimal) },
  { header: 'Field 4 / currency', path: 'amounts', format: (_v, tx) => `${tx.amounts?.amount ?? ''} / ${tx.amounts?.currency ?? ''} (${txCurrency(tx)})` },
  { header: 'Fee', path: 'merchantFeeAmount' },
  { header: 'Card', path: 'cardData.pan', ...computed(txCard) },
  { header: 'Track 2', path: 'cardData.track2' },
  { header: 'Card ID', path: 'card.id' },
  { header: 'Card status', path: 'card.status', status: true },
  { header: 'Account', path: 'accounts.account1' },
  { header: 'Processing code', path: 'processingCode' },
  { header: 'STAN', path: 'stan' },
  { header: 'RRN', path: 'rrn' },
  { header: 'Transmitted', path: 'dates.transmission' },
  { header: 'Local date/time', path: 'dates.local' },
  { header: 'Card expiry', path: 'dates.expiration' },
  { header: 'Merchant', path: 'merchantId' },
  { header: 'Terminal', path: 'terminalId' },
  { header: 'Channel', path: 'transactionChannel.channelType', format: (_v, tx) => channelText(tx) },
  { header: 'Capabilities', path: 'posData.capabilities' },
  { header: 'Entry mode', path: 'transactionChannel.entryMode' },
  { header: 'POS condition', path: 'transactionChannel.posConditionCode' },
  { header: 'POS data code', path: 'transactionChannel.posDataCode' },
  { header: 'Reversed', path: 'reversed', format: (v) => (v === true ? 'yes' : v === false ? 'no' : '') },
  { header: 'Reversal ID', path: 'reversalId' },
  { header: 'Duration', path: 'duration', format: (v) => (typeof v === 'number' ? `${v} ms` : '') },
  { header: 'Correlation ID', path: 'correlationId' },
  { header: 'Institution', path: 'institution.name', format: (_v, tx) => (tx.institution ? `${tx.institution.name} (${tx.institution.id})` : '') },
  { header: 'Version', path: '__v' },
  { header: 'Created', path: 'createdAt' },
  { header: 'Updated', path: 'updatedAt' },
];

function channelText(tx: TxRecord): string {
  const c = tx.transactionChannel;
  if (!c) return '';
  const flags = [c.isCardPresent ? 'card present' : 'card not present', c.isPhysical ? 'physical' : '', c.isAtm ? 'ATM' : ''].filter(Boolean);
  return `${c.channelType ?? ''} (${c.detailedChannelType ?? ''}; ${flags.join(', ')})`;
}

type ResultRecord = SimulateResult & { outcome?: string };

/** approved, declined (a decline code) or failed (96: the institution could not be asked or answered badly). */
export function outcomeOf(result: Pick<SimulateResult, 'responseCode'>): 'approved' | 'declined' | 'failed' {
  return isApproved(result.responseCode) ? 'approved' : result.responseCode === '96' ? 'failed' : 'declined';
}

/** The amount asked, and after a partial approval what was approved of it: "approved ₦0.60 of ₦1.00". */
function simulatedAmount(result: SimulateResult): string {
  const requested = result.request?.['4'];
  if (!requested) return '';
  const currency = result.request['49'] ?? '566';
  const approved = result.response?.['4'];
  if (result.responseCode === PARTIAL_APPROVAL_CODE && isField4(approved) && approved !== requested) {
    return `approved ${formatAmount(approved, currency)} of ${formatAmount(requested, currency)}`;
  }
  return formatAmount(requested, currency);
}

/** Key/value rows of a simulation result (`simulate authorization|financial|reversal`). */
export const simulateRows: Column<ResultRecord>[] = [
  {
    header: 'Result', path: 'outcome',
    format: (_v, r, style) => (isApproved(r.responseCode) ? style.ok(outcomeOf(r)) : style.error(outcomeOf(r))),
    csv: (_v, r) => outcomeOf(r),
  },
  { header: 'Code', path: 'responseCode', csv: (_v, r) => r.responseCode, format: (_v, r, style) => colourResponse(r.responseCode, r.responseCode, style) },
  { header: 'Meaning', path: 'responseMessage', format: (_v, r) => r.responseMessage || responseMessage(r.responseCode) },
  { header: 'Status', path: 'transactionStatus', status: true },
  { header: 'Message', path: 'mti', format: (_v, r) => messageLabel({ mti: r.mti }) },
  {
    header: 'Amount', path: 'amount',
    format: (_v, r) => simulatedAmount(r),
    csv: (_v, r) => (r.request?.['4'] ? minorToDecimal(r.request['4'], currencyInfo(r.request['49'] ?? '566')?.digits ?? 2) : ''),
  },
  { header: 'STAN', path: 'stan' },
  { header: 'RRN', path: 'rrn' },
  { header: 'Transaction ID', path: 'transactionId' },
  { header: 'Duration', path: 'duration', format: (v) => (typeof v === 'number' ? `${v} ms` : '') },
];
