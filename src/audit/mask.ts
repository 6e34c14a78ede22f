// No full card number reaches the screen: whatever the API answers, card-number fields are cut to
// the first 6 and last 4 digits before any command sees the data (tables, JSON, raw, --jq …).
// Only named fields are touched, never free text, so phone or account numbers stay intact.
import { maskPan } from '../core/redact.js';

const PAN_KEYS = new Set(['pan', 'cardnumber', 'primaryaccountnumber', '2']);
const TRACK_KEYS = new Set(['track2', '35']);
const FULL_PAN = /^\d{13,19}$/;
const FULL_TRACK = /^(\d{13,19})[=D](.*)$/;

/** Masks card numbers and track 2 data in `data` (in place) and in `raw`; returns the response. */
export function maskCardData<R extends { data: unknown; raw: string }>(response: R): R {
  let replaced: Map<string, string> | undefined;
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach(walk);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const record = value as Record<string, unknown>;
    for (const key in record) {
      if (!Object.hasOwn(record, key)) continue;
      const item = record[key];
      if (typeof item === 'string') {
        // A card number has at least 13 digits; shorter strings cannot hold one.
        if (item.length < 13) continue;
        const lower = key.toLowerCase();
        if (PAN_KEYS.has(lower) && FULL_PAN.test(item)) {
          record[key] = maskPan(item);
          (replaced ??= new Map()).set(item, record[key] as string);
        } else if (TRACK_KEYS.has(lower)) {
          const track = FULL_TRACK.exec(item);
          if (track) {
            record[key] = `${maskPan(track[1]!)}=${track[2]!.slice(0, 4)}`;
            (replaced ??= new Map()).set(item, record[key] as string);
          }
        }
      } else if (item !== null && typeof item === 'object') {
        walk(item);
      }
    }
  };
  walk(response.data);
  if (replaced) {
    // Longest first, so a track 2 is replaced whole before the card number inside it.
    let raw = response.raw;
    for (const [full, masked] of [...replaced].sort((a, b) => b[0].length - a[0].length)) raw = raw.split(full).join(masked);
    response.raw = raw;
  }
  return response;
}
