// Durations as people write them in specs and flags: `500ms`, `1.5s`, `2m`. One parser, so every
// key that takes a duration takes the same units. Whole milliseconds only: the timers that use
// them have no finer grain, so `0.5ms` is refused rather than rounded to something else.

export const DURATION_UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
export type DurationUnit = keyof typeof DURATION_UNITS;

export type ParsedDuration = { ok: true; ms: number } | { ok: false; reason: string };

const DURATION = /^(\d+(?:\.\d+)?|\.\d+)\s*(ms|s|m|h)?$/;

/**
 * `text` in milliseconds. A number without a unit is in `bareUnit` (refused when there is none).
 * Not a duration, or not a whole number of milliseconds: the reason, for the caller's message.
 */
export function parseDuration(text: string, bareUnit?: DurationUnit): ParsedDuration {
  const match = DURATION.exec(text.trim());
  const unit = (match?.[2] as DurationUnit | undefined) ?? bareUnit;
  if (!match || unit === undefined) return { ok: false, reason: `is not a duration such as 500ms, 2s or 1m` };
  return wholeMs(Number(match[1]) * DURATION_UNITS[unit]);
}

/**
 * `100-300ms`, `1-2s`, `5s` (a single value: both ends), in milliseconds; the unit written last
 * applies to both ends unless the low one has its own (`500ms-2s`).
 */
export function parseDurationRange(text: string, bareUnit?: DurationUnit): { ok: true; range: [number, number] } | { ok: false; reason: string } {
  const match = /^([\d.]+)\s*([a-z]*)\s*-\s*([\d.]+)\s*([a-z]*)$/.exec(text.trim());
  if (!match) {
    const single = parseDuration(text, bareUnit);
    return single.ok ? { ok: true, range: [single.ms, single.ms] } : single;
  }
  const high = parseDuration(`${match[3]}${match[4]}`, bareUnit);
  if (!high.ok) return { ok: false, reason: `is not a range such as 100-300ms` };
  const low = parseDuration(`${match[1]}${match[2] || match[4]}`, bareUnit);
  if (!low.ok) return low.reason.includes('millisecond') ? low : { ok: false, reason: `is not a range such as 100-300ms` };
  if (low.ms > high.ms) return { ok: false, reason: 'goes from high to low' };
  return { ok: true, range: [low.ms, high.ms] };
}

function wholeMs(ms: number): ParsedDuration {
  if (!Number.isFinite(ms)) return { ok: false, reason: 'is not a duration such as 500ms, 2s or 1m' };
  // 1.1s is 1100 ms, though 1.1 * 1000 is 1100.0000000000002 in floating point.
  const rounded = Math.round(ms);
  if (Math.abs(ms - rounded) > 1e-6) return { ok: false, reason: 'is finer than a millisecond (give whole milliseconds)' };
  return { ok: true, ms: rounded };
}
