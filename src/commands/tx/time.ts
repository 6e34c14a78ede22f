// --since / --until: an ISO date or date-time, or a duration back from now (90s, 30m, 24h, 7d, 2w).
import { UsageError } from '../../core/errors.js';

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

export function parseTimeBound(flag: string, value: string, now: Date): Date {
  const text = value.trim();
  const duration = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(text);
  if (duration) return new Date(now.getTime() - Number(duration[1]) * UNIT_MS[duration[2]!.toLowerCase()]!);
  if (/^\d{4}-\d{2}-\d{2}$/.test(text) || /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(text)) {
    const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new UsageError(`invalid ${flag} "${value}": expected an ISO date or date-time (2026-11-22, 2026-11-22T10:00:00Z) or a duration like 30m, 24h, 7d`);
}
