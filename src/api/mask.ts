// No full card number reaches the screen: whatever the API answers, card-number fields are cut to
// the first 6 and last 4 digits before any command sees the data (tables, JSON, raw, --jq …).
// Only named fields are touched, never free text, so phone or account numbers stay intact; a
// card-number field is masked whether text or a JSON number. The rest of the rule (free text,
// numbers anywhere, secrets) is applied where output is written: redactValue in core/redact.ts.
import { maskPan, maskPanNumber, PAN_KEYS, PAN_MAX_DIGITS, PAN_MIN_DIGITS } from '../core/redact.js';
const TRACK_KEYS = new Set(['track2', '35']);
const FULL_PAN = new RegExp(`^\\d{${PAN_MIN_DIGITS},${PAN_MAX_DIGITS}}$`);
const FULL_TRACK = new RegExp(`^(\\d{${PAN_MIN_DIGITS},${PAN_MAX_DIGITS}})[=D](.*)$`);

/** Masks card numbers and track 2 data in `data` (in place) and in `raw`; returns the response. */
export function maskCardData<R extends { data: unknown; raw: string }>(response: R): R {
  let replaced: Map<string, string> | undefined;
  maskWalk(response.data, (full, masked) => (replaced ??= new Map()).set(full, masked));
  if (replaced) {
    // Longest first, so a track 2 is replaced whole before the card number inside it.
    let raw = response.raw;
    for (const [full, masked] of [...replaced].sort((a, b) => b[0].length - a[0].length)) raw = raw.split(full).join(masked);
    response.raw = raw;
  }
  return response;
}

/** Masks every card-number and track 2 field of `value` in place; `onMasked` hears each value replaced. */
function maskWalk(value: unknown, onMasked?: (full: string, masked: string) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) maskWalk(item, onMasked);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const record = value as Record<string, unknown>;
  // Object.keys rather than for…in: half the time on Node 24 for the records of a transaction list.
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = record[key];
    if (typeof item === 'string') {
      // Shorter strings cannot hold a card number.
      if (item.length < PAN_MIN_DIGITS) continue;
      const lower = key.toLowerCase();
      let masked: string | undefined;
      if (PAN_KEYS.has(lower)) {
        if (FULL_PAN.test(item)) masked = maskPan(item);
      } else if (TRACK_KEYS.has(lower)) {
        const track = FULL_TRACK.exec(item);
        if (track) masked = `${maskPan(track[1]!)}=${track[2]!.slice(0, 4)}`;
      }
      if (masked !== undefined) {
        record[key] = masked;
        onMasked?.(item, masked);
      }
    } else if (typeof item === 'number') {
      if (!PAN_KEYS.has(key.toLowerCase())) continue;
      const masked = maskPanNumber(item, true);
      if (masked !== item) {
        record[key] = masked;
        onMasked?.(String(item), `"${masked}"`);
      }
    } else if (item !== null && typeof item === 'object') {
      maskWalk(item, onMasked);
    }
  }
}
