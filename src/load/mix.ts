// The traffic of `simulate load`: which intent each request is, by weight, and which card and
// channel it uses, in turn. Deterministic: the same flags send the same sequence.
import { UsageError } from '../core/errors.js';
import { INTENTS } from '../core/enums.js';

export type Intent = (typeof INTENTS)[number];
export type Mix = ReadonlyArray<{ intent: Intent; weight: number }>;

export const DEFAULT_MIX: Mix = [{ intent: 'authorization', weight: 1 }];

/** `authorization=80,financial=15,reversal=5` (weights, not necessarily summing to 100). */
export function parseMix(text: string, source = '--mix'): Mix {
  const mix = text.split(',').map((part) => part.trim()).filter(Boolean).map((part) => {
    const match = /^([a-z]+)\s*=\s*(\d+(?:\.\d+)?)$/.exec(part);
    if (!match || !(INTENTS as readonly string[]).includes(match[1]!)) {
      throw new UsageError(`invalid ${source} "${part}": expected INTENT=WEIGHT with an intent of ${INTENTS.join(', ')}`, { hint: 'e.g. --mix authorization=80,financial=15,reversal=5' });
    }
    return { intent: match[1] as Intent, weight: Number(match[2]) };
  });
  return checkMix(mix, source);
}

export function checkMix(mix: Mix, source: string): Mix {
  const intents = mix.map((entry) => entry.intent);
  if (new Set(intents).size !== intents.length) throw new UsageError(`invalid ${source}: an intent is given twice`);
  const positive = mix.filter((entry) => entry.weight > 0);
  if (positive.length === 0) throw new UsageError(`invalid ${source}: give at least one intent a weight above 0`);
  if (positive.every((entry) => entry.intent === 'reversal')) throw new UsageError(`invalid ${source}: reversals need authorizations or financials of the run to reverse`);
  return positive;
}

/**
 * The intents in turn by smooth weighted round robin: 80/15/5 sends, in every 100, 80
 * authorizations, 15 financials and 5 reversals, spread evenly.
 */
export function intentSequence(mix: Mix): () => Intent {
  const total = mix.reduce((sum, entry) => sum + entry.weight, 0);
  const current = mix.map(() => 0);
  return () => {
    let best = 0;
    mix.forEach((entry, i) => {
      current[i]! += entry.weight;
      if (current[i]! > current[best]!) best = i;
    });
    current[best]! -= total;
    return mix[best]!.intent;
  };
}

/** The items in turn, forever. */
export function roundRobin<T>(items: readonly T[]): () => T {
  let next = 0;
  return () => items[next++ % items.length]!;
}
