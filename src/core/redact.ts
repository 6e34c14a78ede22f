// The disclosure rule: what any output may show (every CLI format, --debug, error messages, the
// audit journal, the sandbox's exchange records and inspector, certify's reports, MCP results).
// Secrets are replaced whole; card numbers keep at most the first 6 and last 4 digits, whether
// they come as text or as a JSON number; every signature of a signature header is replaced.
import { SENSITIVE_FIELDS } from './card-secret-fields.js';

const SECRET_KEYS = new Set(
  [
    'authorization', 'proxy-authorization', 'x-api-key', 'cookie', 'set-cookie',
    'token', 'access_token', 'accesstoken', 'refresh_token', 'apikey', 'api_key', 'secret', 'webhooksecret',
    'client_assertion', 'password', 'privatekey', 'private_key',
    'encrypteddata', 'defaultpin', 'oldpin', 'newpin', 'pin', 'pinblock', 'pinoffset',
    'cvv', 'cvv2', 'icvv', 'securedata', 'hash', 'track2',
  ].map((key) => key.toLowerCase()),
);
/**
 * Names that hold a secret whatever comes before them: webhookSecret, clientSecret, client_secret,
 * accessToken, refresh_token, x-api-key, privateKey, pinBlock … (compared without - and _).
 */
const SECRET_SUFFIXES = ['secret', 'password', 'passwd', 'passphrase', 'token', 'apikey', 'privatekey', 'pinblock', 'assertion'];
/** Fields that hold a card number, whatever its form (src/audit/mask.ts reads the same set). */
export const PAN_KEYS: ReadonlySet<string> = new Set(['pan', '2', 'cardnumber', 'primaryaccountnumber']);

/** Whether a field, header, parameter or flag named `key` holds a secret (its value is never shown). */
export function isSecretKey(key: string): boolean {
  return kindOfKey(key) === 'secret';
}

/** What a name says its value is, for redactNode. */
type KeyKind = 'secret' | 'pan' | 'signature' | 'plain';
/** kindOfKey's answers: the same few names come back on every record of a list. */
const keyKinds = new Map<string, KeyKind>();
const KEY_KINDS_MAX = 4096;

function kindOfKey(key: string): KeyKind {
  let kind = keyKinds.get(key);
  if (kind === undefined) {
    const lower = key.toLowerCase();
    kind = secretKeyName(key) ? 'secret' : PAN_KEYS.has(lower) ? 'pan' : isSignatureKey(lower) ? 'signature' : 'plain';
    if (keyKinds.size < KEY_KINDS_MAX) keyKinds.set(key, kind);
  }
  return kind;
}

function secretKeyName(key: string): boolean {
  const lower = key.toLowerCase();
  // A message field that carries a card secret (track data, the PIN block, chip data): `--set 52=…`, a body's overrides.
  if (SECRET_KEYS.has(lower) || SENSITIVE_FIELDS.has(lower)) return true;
  const bare = lower.replace(/[-_]/g, '');
  return SECRET_SUFFIXES.some((suffix) => bare.endsWith(suffix));
}

/** `scheme://user:password@` anywhere in text (up to the last @ of the authority). */
const URL_USERINFO = /\b([a-z][a-z\d+.-]*:\/\/)[^\s/?#]+@/gi;

/** Text with the user info of every URL in it replaced whole: `http://[REDACTED]@host`. */
export function redactUserinfo(text: string): string {
  return text.includes('://') && text.includes('@') ? text.replace(URL_USERINFO, `$1${REDACTED}@`) : text;
}

export const REDACTED = '[REDACTED]';

/**
 * Replaces each of `secrets` whole wherever it appears in a text, longest first (a secret inside
 * another is not left half-replaced). Each caller decides which values count as secrets.
 */
export function secretReplacer(secrets: readonly string[]): (text: string) => string {
  const known = [...new Set(secrets.filter((secret) => secret !== ''))].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  };
}

/** Masks a card number to first 6 + last 4 (or last 4 alone when shorter than 13 digits). */
export function maskPan(pan: string): string {
  const digits = pan.replace(/\D/g, '');
  if (digits.length < PAN_MIN_DIGITS) return digits.length > 4 ? `${'*'.repeat(digits.length - 4)}${digits.slice(-4)}` : pan;
  return `${digits.slice(0, 6)}${'*'.repeat(digits.length - 10)}${digits.slice(-4)}`;
}

/** Shows the first 4 and last 4 characters of a secret, e.g. for `auth status`. */
export function maskSecret(secret: string | undefined): string {
  if (!secret) return '';
  if (secret.length <= 12) return '*'.repeat(secret.length);
  return `${secret.slice(0, 4)}…${secret.slice(-4)}`;
}

/** The digits of a card number (ISO/IEC 7812). */
export const PAN_MIN_DIGITS = 13;
export const PAN_MAX_DIGITS = 19;

/**
 * Card numbers in free text, masked to first 6 + last 4: every stretch of whole digit groups of
 * a run that stands alone holding 13–19 digits that pass the Luhn check. A run: digits in groups
 * split by one space or dash, with no letter, digit or underscore joined to either end, directly
 * or by a dash (a hex id, a UUID's part, `tx-…`), and not part of a +phone number (after a `+`
 * and only digits, spaces, dashes and brackets). A slash, quote, `=`, space or the text's end
 * bounds one. The one rule for error lines, --debug, URLs and the journal; ids that merely hold
 * such digits stay whole.
 *
 * A scanner, one pass (the pattern it replaces,
 * /(?<![\w+]|\w-)(?<!\+[\d ()-]*)\d+(?:[ -]\d+)*(?!\w|-\w)/g, looked back to the text's start
 * from every digit of `+ 1 1 1 …`: quadratic).
 */
export function maskPansInText(text: string): string {
  // Most text (every string of every audit entry) has no such run: a loop over it is cheaper.
  if (longestDigitRun(text) < PAN_MIN_DIGITS) return text;
  let out = '';
  let copied = 0;
  // Whether the last character before `scanned` that is not a digit, space, dash or bracket is a `+`.
  let afterPlus = false;
  let scanned = 0;
  for (let start = 0; start < text.length; start++) {
    if (!isDigitAt(text, start) || !standsAloneBefore(text, start)) continue;
    for (; scanned < start; scanned++) {
      const c = text.charCodeAt(scanned);
      if (c === PLUS) afterPlus = true;
      else if (!isPhoneCharacter(c)) afterPlus = false;
    }
    if (afterPlus) continue;
    const end = runEnd(text, start);
    if (end === undefined) continue;
    out += text.slice(copied, start) + maskPanGroups(text.slice(start, end));
    copied = end;
    start = end - 1;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

const PLUS = 43;
const SPACE = 32;
const DASH = 45;

/** Nothing joined to a run starting at `at`: no word character or `+` before it, nor a word character and a dash. */
function standsAloneBefore(text: string, at: number): boolean {
  const before = text.charCodeAt(at - 1);
  return !(isWordCode(before) || before === PLUS || (before === DASH && isWordCode(text.charCodeAt(at - 2))));
}

/** Nothing joined to a run ending at `at`: no word character after it, nor a dash and a word character. */
function standsAloneAfter(text: string, at: number): boolean {
  const after = text.charCodeAt(at);
  return !(isWordCode(after) || (after === DASH && isWordCode(text.charCodeAt(at + 1))));
}

/**
 * Where the run of digit groups starting at `start` ends: its last group's end when nothing is
 * joined to it, else the end of the last group followed by a space (the run stops short there),
 * else undefined (no run stands alone from here).
 */
function runEnd(text: string, start: number): number | undefined {
  let lastBeforeSpace: number | undefined;
  let at = start;
  for (;;) {
    while (isDigitAt(text, at)) at++;
    const separator = text.charCodeAt(at);
    if ((separator === SPACE || separator === DASH) && isDigitAt(text, at + 1)) {
      if (separator === SPACE) lastBeforeSpace = at;
      at++;
      continue;
    }
    return standsAloneAfter(text, at) ? at : lastBeforeSpace;
  }
}

/** [0-9A-Za-z_] (a regular expression's \w); false past either end of the text (NaN). */
function isWordCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/** What a phone number holds after its `+`: digits, spaces, dashes, brackets. */
function isPhoneCharacter(c: number): boolean {
  return (c >= 48 && c <= 57) || c === SPACE || c === DASH || c === 40 || c === 41;
}

/**
 * In a run of digit groups, masks every stretch of whole groups that is a card number (longest
 * first). A stretch holds at most PAN_MAX_DIGITS digits, so at most that many groups are joined
 * from each one: linear in the run.
 */
function maskPanGroups(run: string): string {
  const groups = run.split(/[ -]/);
  const separators = run.match(/[ -]/g) ?? [];
  let out = '';
  for (let i = 0; i < groups.length;) {
    let card: { digits: string; last: number } | undefined;
    let digits = '';
    for (let j = i; j < groups.length && digits.length + groups[j]!.length <= PAN_MAX_DIGITS; j++) {
      digits += groups[j];
      if (digits.length >= PAN_MIN_DIGITS && luhnValid(digits)) card = { digits, last: j };
    }
    if (card) {
      out += maskPan(card.digits) + (separators[card.last] ?? '');
      i = card.last + 1;
    } else {
      out += groups[i]! + (separators[i] ?? '');
      i++;
    }
  }
  return out;
}

/** The digits of the longest run maskPansInText could mask (digits, groups joined by one space or dash). */
function longestDigitRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (++run > longest) longest = run;
    } else if (!((c === 32 || c === 45) && run > 0 && isDigitAt(text, i + 1))) {
      run = 0;
    }
  }
  return longest;
}

function isDigitAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 48 && c <= 57;
}

export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** What a reader asked for explicitly: `--show-secrets` (the CLI only, never an MCP result). */
export interface DisclosureOptions {
  /** Secret-named fields shown as they are; card numbers and signatures stay masked. */
  showSecrets?: boolean;
}

/** Deep copy of a JSON value with secrets replaced, card numbers masked and signatures redacted. */
export function redactValue(value: unknown, key?: string, options: DisclosureOptions = {}): unknown {
  const redacted = redactNode(value, key, options);
  if (redacted !== value || !value || typeof value !== 'object') return redacted;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, undefined, options));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const item = redactValue((value as Record<string, unknown>)[k], k, options);
    // An own `__proto__` (JSON.parse makes one) stays a field, not the copy's prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: item, enumerable: true, writable: true, configurable: true });
    else out[k] = item;
  }
  return out;
}

/**
 * redactValue's rule for one value found under `key` (undefined for an array's items), before
 * it looks inside objects and arrays: a secret's value replaced whole, a signature header's
 * signatures replaced, a card number masked whether text or a number.
 */
export function redactNode(value: unknown, key: string | undefined, options: DisclosureOptions = {}): unknown {
  const kind = key === undefined ? 'plain' : kindOfKey(key);
  // A boolean under a secret's name says whether there is one (`token: true`), and is no secret.
  if (kind === 'secret' && value !== null && value !== undefined && value !== '' && typeof value !== 'boolean' && !options.showSecrets) return REDACTED;
  if (typeof value === 'string') {
    // A card number already masked (`506099******0019`) stays as it is.
    if (kind === 'pan') return value.includes('*') ? value : maskPan(value);
    if (kind === 'signature') return redactSignatures(maskPansInText(value));
    return maskPansInText(redactUserinfo(value));
  }
  if (typeof value === 'number') return maskPanNumber(value, kind === 'pan');
  return value;
}

/**
 * A JSON number that is a card number, masked as text: any integer under a card-number field, and
 * elsewhere an integer whose digits maskPansInText would mask as text (13–19 digits passing the
 * Luhn check), or one too long for a double to hold exactly (its digits are already wrong, not safe).
 */
export function maskPanNumber(value: number, underPanKey = false): number | string {
  if (!Number.isInteger(value) || value < 0) return value;
  const digits = value.toFixed(0);
  if (underPanKey) return maskPan(digits);
  if (digits.length < PAN_MIN_DIGITS || digits.length > PAN_MAX_DIGITS) return value;
  return luhnValid(digits) || !Number.isSafeInteger(value) ? maskPan(digits) : value;
}

/** A header or field that carries webhook signatures (X-Webhook-Signature, webhook-signature, …). */
function isSignatureKey(lower: string): boolean {
  return lower.replace(/[-_]/g, '').endsWith('signature');
}

/**
 * Every signature of a signature header replaced, the scheme's labels and timestamp kept: each
 * `v1=<hex>` of `t=…,v1=…,v1=…` and each `v1,<base64>` of `v1,… v1,…` (two during a secret rotation).
 */
export function redactSignatures(text: string): string {
  return text.replace(/\b(v\d+)([=,])[^,\s]+/gi, `$1$2${REDACTED}`);
}

/** `name=value` (a form body, a query string, a `--set` word) whose name is a secret's. */
const SECRET_PAIR = /([\w.[\]-]+)=([^&\s]+)/g;
/** `Name: value`, a header as `-H` takes it. */
const HEADER_LINE = /^([!#$%&'*+.^_`|~\w-]+):\s*\S/;

/**
 * A body, or any free text that may carry one (a flag's value, an error message): a JSON object's
 * or array's secret fields at any depth, secret `name=value` pairs, a secret header's value, the
 * user info of URLs; card numbers masked.
 */
export function redactBodyText(text: string): string {
  const first = text.trimStart()[0];
  if (first === '{' || first === '[') {
    try {
      return JSON.stringify(redactValue(JSON.parse(text)));
    } catch {
      // Not JSON after all: redacted as text below.
    }
  }
  const header = HEADER_LINE.exec(text);
  if (header && isSecretKey(header[1]!)) return `${header[1]}: ${REDACTED}`;
  const pairs = text.includes('=') ? text.replace(SECRET_PAIR, (pair, name: string) => (isSecretKey(name) ? `${name}=${REDACTED}` : pair)) : text;
  return maskPansInText(redactUserinfo(pairs));
}

/** Headers as any output shows them: secret headers replaced, every signature redacted, card numbers masked. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    if (isSecretKey(name)) {
      out[name] = name.toLowerCase() === 'authorization' ? `${text.split(' ')[0]} ${REDACTED}` : REDACTED;
    } else {
      out[name] = redactNode(text, name) as string;
    }
  }
  return out;
}

/**
 * A webhook URL for a reader who may not read the program's webhook settings: the user info and
 * every query value replaced (a credential can hide under any name: `code`, `sig`, `key` …),
 * card numbers masked. The names stay, so the reader still sees which URL it is.
 */
export function redactUrlCredentials(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return maskPansInText(redactUserinfo(url.replace(/([?&][^=&#]*)=[^&#]*/g, `$1=${REDACTED}`)));
  }
  if (parsed.username || parsed.password) {
    parsed.username = parsed.username ? REDACTED : '';
    parsed.password = parsed.password ? REDACTED : '';
  }
  for (const key of [...new Set(parsed.searchParams.keys())]) parsed.searchParams.set(key, REDACTED);
  return maskPansInText(parsed.href.replace(/%5BREDACTED%5D/g, REDACTED));
}

/**
 * Deep copy of a JSON value with every URL field (`url`, `webhookUrl`, `callbackURL` …) passed
 * through redactUrlCredentials, and every signature header's signatures redacted: what a reader
 * who may not read the webhook settings gets.
 */
export function withoutUrlCredentials(value: unknown, key?: string): unknown {
  if (typeof value === 'string') return key !== undefined && key.toLowerCase().endsWith('url') ? redactUrlCredentials(value) : value;
  if (Array.isArray(value)) return value.map((item) => withoutUrlCredentials(item));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutUrlCredentials(v, k)]));
}

/** A URL for logs: secret-named query parameters replaced, PANs masked. */
export function redactUrl(url: URL | string): string {
  let parsed: URL;
  try {
    parsed = new URL(String(url));
  } catch {
    return maskPansInText(String(url));
  }
  if (parsed.username || parsed.password) {
    parsed.username = parsed.username ? REDACTED : '';
    parsed.password = parsed.password ? REDACTED : '';
  }
  for (const key of [...new Set(parsed.searchParams.keys())]) {
    if (isSecretKey(key)) parsed.searchParams.set(key, REDACTED);
  }
  return maskPansInText(parsed.href.replace(/%5BREDACTED%5D/g, REDACTED));
}
