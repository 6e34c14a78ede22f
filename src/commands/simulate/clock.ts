import { defineCommand } from '../../contract/command.js';
import { defineFlags } from '../../core/flags.js';
import { UsageError } from '../../core/errors.js';

const FLAGS = defineFlags({
  advance: { type: 'string', value: 'duration', description: "move the switch's clock forward, e.g. 90s, 30m, 169h, 7d" },
});

const SECONDS_PER_UNIT: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
/** The sandbox's limit: a year. */
const MAX_ADVANCE_SECONDS = 31_536_000;

/** `90s`, `30m`, `169h`, `7d` → seconds; a usage error otherwise. */
export function parseAdvance(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([smhd])$/.exec(text.trim());
  const seconds = match ? Number(match[1]) * SECONDS_PER_UNIT[match[2]!]! : NaN;
  if (!(seconds > 0 && seconds <= MAX_ADVANCE_SECONDS)) {
    throw new UsageError(`invalid --advance "${text}": give a duration up to a year, e.g. 90s, 30m, 169h or 7d`);
  }
  return seconds;
}

/** The rows of the clock as printed (and what --fields may name). */
const CLOCK_ROWS = [
  { header: 'Now', path: 'now' },
  { header: 'Offset', path: 'offsetSeconds', format: (v: unknown) => `${String(v)} s` },
  { header: 'Holds released', path: 'expired' },
];

export default defineCommand({
  name: 'clock',
  mcp: 'simulate',
  output: async () => {
    const { outputShape } = await import('../../output/shape.js');
    const { summaryKeys } = await import('../output-shapes.js');
    return outputShape(CLOCK_ROWS, summaryKeys<import('../../api/simulate.js').SwitchClock>({ now: true, offsetSeconds: true, expired: true }));
  },
  summary: "show or move forward the sandbox switch's clock (sandbox extension)",
  description: `The switch stamps transactions and expires holds by its own clock. --advance moves it forward
and releases every approved authorization older than its program's holdPeriodHours (default 168),
so an expiry needs no waiting; tokens keep the real clock. Prints the clock and the holds released.
Loopback only: the sandbox answers requests from this machine.`,
  flags: FLAGS,
  examples: ['cardctl simulate clock', 'cardctl simulate clock --advance 169h'],
  parse: ({ opts }) => ({ seconds: opts.advance === undefined ? undefined : parseAdvance(opts.advance) }),
  async run(ctx, { seconds }) {
    const [api, client] = await Promise.all([import('../../api/simulate.js'), ctx.client()]);
    const response = seconds === undefined
      ? await api.readSwitchClock(client, { signal: ctx.signal })
      : await api.advanceSwitchClock(client, seconds, { signal: ctx.signal });
    await ctx.output().record(response.data, { raw: response.raw, rows: CLOCK_ROWS });
  },
});
