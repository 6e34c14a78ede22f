// Amounts: major units as people type them ↔ the 12-digit minor-unit text of field 4, by the
// currency's exponent (ISO 4217 via the currency-codes package). Money never goes through
// floating-point arithmetic here: amounts are parsed as decimal text into bigint minor units.
import cc from 'currency-codes';

export interface CurrencyInfo {
  /** ISO 4217 numeric code, 3 digits ("566"). */
  number: string;
  /** Alphabetic code ("NGN"). */
  code: string;
  /** Minor-unit exponent: 0 (JPY), 2 (NGN), 3 (BHD). */
  digits: number;
  /** Display symbol ("₦"), or the alphabetic code when there is none. */
  symbol: string;
}

export const DEFAULT_CURRENCY = '566';
/** The largest amount field 4 can carry. */
export const MAX_MINOR = 999_999_999_999n;

export class AmountError extends Error {
  override readonly name = 'AmountError';
}

const cache = new Map<string, CurrencyInfo | null>();

/** A currency by numeric ("566", "48") or alphabetic ("NGN") code; undefined when unknown. */
export function currencyInfo(value: string): CurrencyInfo | undefined {
  const key = value.trim().toUpperCase();
  const cached = cache.get(key);
  if (cached !== undefined) return cached ?? undefined;
  const entry = /^\d{1,3}$/.test(key) ? cc.number(key.padStart(3, '0')) : cc.code(key);
  const info = entry ? withLazySymbol({ number: entry.number, code: entry.code, digits: entry.digits }) : null;
  cache.set(key, info);
  return info ?? undefined;
}

/**
 * ISO 4217 codes that are not money a card spends: no currency (XXX 999), the precious metals
 * (XAU 959, XAG 961, XPT 962, XPD 964), units of account and settlement (XDR 960, XSU 994,
 * XUA 965), the bond-market units (XBA–XBD 955–958), the testing code (XTS 963), and the funds
 * codes beside national currencies (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW).
 */
const NOT_CARD_CURRENCIES: ReadonlySet<string> = new Set([
  'XXX', 'XAU', 'XAG', 'XPT', 'XPD', 'XDR', 'XSU', 'XUA', 'XBA', 'XBB', 'XBC', 'XBD', 'XTS',
  'BOV', 'CHE', 'CHW', 'CLF', 'COU', 'MXV', 'USN', 'UYI', 'UYW',
]);

/**
 * A currency card transactions may be in (numeric or alphabetic code); AmountError naming why
 * not: unknown to ISO 4217, or one of its codes that is no currency (NOT_CARD_CURRENCIES).
 */
export function cardCurrency(value: string): CurrencyInfo {
  const info = currencyInfo(value);
  if (!info) throw new AmountError(`"${value}" is not an ISO 4217 currency code`);
  if (NOT_CARD_CURRENCIES.has(info.code)) throw new AmountError(`"${value}" is ${info.code}, an ISO 4217 code that is not a currency cards transact in`);
  return info;
}

/**
 * The symbol is worked out on first use: the first Intl.NumberFormat of a process loads ICU's
 * currency data (about 10 ms), which validating `--currency` or reading an exponent never needs.
 */
function withLazySymbol(info: Omit<CurrencyInfo, 'symbol'>): CurrencyInfo {
  let symbol: string | undefined;
  return Object.defineProperty(info, 'symbol', {
    get: () => (symbol ??= symbolOf(info.code)),
    enumerable: true,
  }) as CurrencyInfo;
}

function symbolOf(code: string): string {
  try {
    const parts = new Intl.NumberFormat('en', { style: 'currency', currency: code, currencyDisplay: 'narrowSymbol' }).formatToParts(0);
    return parts.find((p) => p.type === 'currency')?.value ?? code;
  } catch {
    return code;
  }
}

/**
 * Parses an amount in major units as people write it — `1500`, `1500.00`, `1,500.00` — into
 * minor units. Rejects more decimals than the currency allows, negative values, bad digit
 * grouping and amounts that do not fit field 4.
 */
export function parseAmount(text: string, digits: number): bigint {
  const trimmed = text.trim();
  const match = /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d*))?$/.exec(trimmed);
  if (!match) {
    throw new AmountError(`"${text}" is not an amount: write it in major units like 1500, 1500.00 or 1,500.00`);
  }
  const whole = match[1]!.replace(/,/g, '');
  const fraction = withoutTrailingZeros(match[2] ?? '');
  if (fraction.length > digits) {
    throw new AmountError(
      digits === 0
        ? `"${text}" has decimals, but the currency has no minor units`
        : `"${text}" has ${match[2]!.length} decimals, but the currency allows at most ${digits}`,
    );
  }
  const minor = BigInt(whole) * 10n ** BigInt(digits) + BigInt(fraction.padEnd(digits, '0') || '0');
  if (minor > MAX_MINOR) throw new AmountError(`"${text}" is too large for the amount field (12 digits of minor units)`);
  return minor;
}

/** A JSON number of major units (the simulate body's `amount`) → minor units, exactly. */
export function amountToMinor(amount: number, digits: number): bigint {
  if (!Number.isFinite(amount) || amount < 0) throw new AmountError(`amount ${amount} must be a non-negative number`);
  // String() gives the shortest text that round-trips, so 1500.1 is "1500.1", not 1500.0999….
  const text = String(amount);
  if (/e/i.test(text)) {
    if (amount >= 1) throw new AmountError(`amount ${text} is too large for the amount field`);
    throw new AmountError(`amount ${text} has more decimals than the currency allows (${digits})`);
  }
  return parseAmount(text, digits);
}

/** Minor units → the 12-digit zero-padded text of field 4. */
export function toField4(minor: bigint | number): string {
  const value = BigInt(minor);
  if (value < 0n || value > MAX_MINOR) throw new AmountError(`amount ${value} does not fit field 4`);
  return value.toString().padStart(12, '0');
}

/** Minor units → major units as a number (for display fields and limits). */
export function minorToMajor(minor: bigint | number | string, digits: number): number {
  return Number(minorToDecimal(minor, digits));
}

/** Minor units → plain decimal text with exactly `digits` decimals ("1500.00"). */
export function minorToDecimal(minor: bigint | number | string, digits: number): string {
  const text = BigInt(typeof minor === 'string' ? minor.replace(/^0+(?=\d)/, '') || '0' : minor).toString().padStart(digits + 1, '0');
  return digits === 0 ? text : `${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/**
 * Minor units of a currency for people: "₦1,500.00", "¥1,500", "BHD 1.500". Unknown
 * currencies print the number with two decimals and the code.
 */
export function formatAmount(minor: bigint | number | string, currency: string = DEFAULT_CURRENCY): string {
  const info = currencyInfo(currency);
  const digits = info?.digits ?? 2;
  const decimal = minorToDecimal(minor, digits);
  const [whole, fraction] = decimal.split('.');
  const grouped = whole!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const number = fraction ? `${grouped}.${fraction}` : grouped;
  if (!info) return `${number} (${currency})`;
  return info.symbol === info.code ? `${info.code} ${number}` : `${info.symbol}${number}`;
}

/** Field 4 text ("000000150000") is well-formed: 12 digits. */
export function isField4(text: unknown): text is string {
  return typeof text === 'string' && /^\d{12}$/.test(text);
}

/** `/0+$/` rescans a run of zeros from each of its starts: quadratic on `0.000…01`. */
function withoutTrailingZeros(digits: string): string {
  let end = digits.length;
  while (end > 0 && digits[end - 1] === '0') end--;
  return digits.slice(0, end);
}
