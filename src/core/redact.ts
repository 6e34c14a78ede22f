// Redaction for --debug, error messages and the audit journal. Secrets are replaced whole;
// PANs keep at most the first 6 and last 4 digits.

const SECRET_KEYS = new Set(
  [
    'authorization', 'proxy-authorization', 'x-api-key', 'cookie', 'set-cookie',
    'token', 'access_token', 'accesstoken', 'refresh_token', 'apikey', 'api_key', 'secret', 'webhooksecret',
    'client_assertion', 'password', 'privatekey', 'private_key',
    'encrypteddata', 'defaultpin', 'oldpin', 'newpin', 'pin', 'pinblock', 'pinoffset',
    'cvv', 'cvv2', 'icvv', 'securedata', 'hash', 'track2', '35',
  ].map((key) => key.toLowerCase()),
);
const PAN_KEYS = new Set(['pan', '2', 'cardnumber']);

export const REDACTED = '[REDACTED]';

/** Masks a card number to first 6 + last 4 (or last 4 alone when shorter than 13 digits). */
export function maskPan(pan: string): string {
  const digits = pan.replace(/\D/g, '');
  if (digits.length < 13) return digits.length > 4 ? `${'*'.repeat(digits.length - 4)}${digits.slice(-4)}` : pan;
  return `${digits.slice(0, 6)}${'*'.repeat(digits.length - 10)}${digits.slice(-4)}`;
}

/** Shows the first 4 and last 4 characters of a secret, e.g. for `auth status`. */
export function maskSecret(secret: string | undefined): string {
  if (!secret) return '';
  if (secret.length <= 12) return '*'.repeat(secret.length);
  return `${secret.slice(0, 4)}…${secret.slice(-4)}`;
}

/** Masks runs of 13–19 digits that pass the Luhn check (PANs in free text). */
export function maskPansInText(text: string): string {
  // Most text (every string of every audit entry) has no such run: a loop over it is cheaper than the regex.
  if (!hasDigitRun(text, 13)) return text;
  return text.replace(/(?<!\d)\d{13,19}(?!\d)/g, (run) => (luhnValid(run) ? maskPan(run) : run));
}

/** Whether `text` holds `length` digits in a row. */
function hasDigitRun(text: string, length: number): boolean {
  for (let i = 0, run = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    run = c >= 48 && c <= 57 ? run + 1 : 0;
    if (run >= length) return true;
  }
  return false;
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

/** Deep copy of a JSON value with secrets replaced and PANs masked. */
export function redactValue(value: unknown, key?: string): unknown {
  const redacted = redactNode(value, key);
  if (redacted !== value || !value || typeof value !== 'object') return redacted;
  if (Array.isArray(value)) return value.map((item) => redactValue(item));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, k)]));
  }
  return value;
}

/**
 * redactValue's rule for one value found under `key` (undefined for an array's items), before
 * it looks inside objects and arrays: a secret's value replaced whole, a string's card numbers masked.
 */
export function redactNode(value: unknown, key: string | undefined): unknown {
  const lowerKey = key?.toLowerCase();
  if (lowerKey !== undefined && SECRET_KEYS.has(lowerKey) && value !== null && value !== undefined && value !== '') return REDACTED;
  if (typeof value === 'string') {
    if (lowerKey !== undefined && PAN_KEYS.has(lowerKey)) return maskPan(value);
    return maskPansInText(value);
  }
  return value;
}

/** Redacts a body that may or may not be JSON. */
export function redactBodyText(text: string): string {
  try {
    return JSON.stringify(redactValue(JSON.parse(text)));
  } catch {
    // Not JSON: form bodies (token endpoint) and free text.
    return maskPansInText(
      text.replace(/((?:client_assertion|access_token|token|secret|password)=)[^&\s]+/gi, `$1${REDACTED}`),
    );
  }
}

export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    if (SECRET_KEYS.has(name.toLowerCase())) {
      out[name] = name.toLowerCase() === 'authorization' ? `${text.split(' ')[0]} ${REDACTED}` : REDACTED;
    } else if (name.toLowerCase() === 'x-webhook-signature') {
      out[name] = text.replace(/v1=[0-9a-f]+/i, `v1=${REDACTED}`);
    } else {
      out[name] = text;
    }
  }
  return out;
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
    if (SECRET_KEYS.has(key.toLowerCase())) parsed.searchParams.set(key, REDACTED);
  }
  return maskPansInText(parsed.href.replace(/%5BREDACTED%5D/g, REDACTED));
}
