import { defineCommand, MCP_SIMULATION_MAX_MS, type ToolFlagValues } from '../../contract/command.js';
import { parseDuration } from '../../core/duration.js';
import { UsageError } from '../../core/errors.js';
import { LOAD_FLAGS } from '../../load/flags.js';

/**
 * An assistant's load run (`cardctl mcp`) is short: it sends for at most 50 s, so that the answers
 * to its last requests (the webhook's deadline is 5 s by default) arrive within the minute a
 * simulation through MCP may take; and it sends at most this many requests.
 */
const ASSISTANT_MAX_MS = MCP_SIMULATION_MAX_MS - 10_000;
const ASSISTANT_MAX_COUNT = 10_000;
/** The run's length when neither a duration nor a count is given (as parseBounds has it). */
const DEFAULT_DURATION = '10s';

/**
 * The bounds of an assistant's load run, on the run the flags make: at a rate, rate × duration
 * requests at most; whatever the shape, the run stops at the count (so a closed loop too), which
 * is added when the call gives none. Values the command refuses anyway are left to its own checks.
 */
function boundAssistantLoad(flags: ToolFlagValues): ToolFlagValues | void {
  const { duration, count, rate } = flags;
  if (count !== undefined && duration === undefined) {
    throw new UsageError(`a load run through cardctl mcp with a count needs a duration too (at most ${ASSISTANT_MAX_MS / 1000}s)`, { hint: 'e.g. count 500 and duration "30s"' });
  }
  const ms = parseDuration(typeof duration === 'string' ? duration : DEFAULT_DURATION);
  // The requests the run would make first, then how long it would take.
  const perSecond = typeof rate === 'string' ? Number(/^(\d+(?:\.\d+)?)\s*(?:\/s)?$/.exec(rate.trim())?.[1]) : NaN;
  const planned = ms.ok && perSecond > 0 ? Math.ceil((perSecond * ms.ms) / 1000) : 0;
  if (planned > ASSISTANT_MAX_COUNT && (count === undefined || Number(count) > ASSISTANT_MAX_COUNT)) {
    throw new UsageError(`rate ${String(rate)} for ${String(duration ?? DEFAULT_DURATION)} makes ${planned.toLocaleString('en')} requests, above the ${ASSISTANT_MAX_COUNT.toLocaleString('en')} a load run through cardctl mcp may send`, {
      hint: 'lower the rate or the duration, or give a count',
    });
  }
  if (ms.ok && ms.ms > ASSISTANT_MAX_MS) {
    throw new UsageError(`duration ${String(duration)} is longer than the ${ASSISTANT_MAX_MS / 1000}s a load run through cardctl mcp may send for (its last answers must arrive within ${MCP_SIMULATION_MAX_MS / 1000}s)`);
  }
  const ramp = typeof flags.ramp === 'string' ? parseDuration(flags.ramp) : undefined;
  if (ramp?.ok && ramp.ms + (ms.ok ? ms.ms : 0) > ASSISTANT_MAX_MS) {
    throw new UsageError(`ramp ${String(flags.ramp)} and duration make a load run longer than the ${ASSISTANT_MAX_MS / 1000}s one through cardctl mcp may send for`);
  }
  if (typeof count === 'string' && /^\d+$/.test(count.trim()) && Number(count) > ASSISTANT_MAX_COUNT) {
    throw new UsageError(`count ${count} is above the ${ASSISTANT_MAX_COUNT.toLocaleString('en')} requests a load run through cardctl mcp may send`);
  }
  if (count === undefined) return { count: String(ASSISTANT_MAX_COUNT), duration: typeof duration === 'string' ? duration : DEFAULT_DURATION };
}

export default defineCommand({
  name: 'load',
  mcp: { use: 'simulate', bound: boundAssistantLoad },
  output: async () => {
    const [{ outputShape }, { summaryKeys }] = await Promise.all([import('../../output/shape.js'), import('../output-shapes.js')]);
    return outputShape(summaryKeys<import('../../load/stats.js').LoadReport>({
      target: true, requests: true, approved: true, declined: true, standIns: true, timeouts: true, errors: true, intents: true, notSent: true,
      responseCodes: true, declinedBy: true, webhookReplies: true, webhookFailures: true, deadlineMs: true, latencyMs: true, achievedRate: true,
      elapsedMs: true, interrupted: true,
    }));
  },
  summary: "drive the sandbox switch and your webhook at a rate or a concurrency; latency and SLOs",
  description: `Sends simulations in forward mode (the card program's webhook answers) to the profile's
base URL, which must be on this machine unless --allow-remote.

Open loop (--rate 50/s): request i is due at i/rate seconds (after --ramp, a linear rise from 0 to
the rate, when given) and sent then whatever the answers,
and its latency counts from that due time, so a slow webhook cannot hide its queue (no
coordinated omission). Closed loop (--concurrency 8): each of N senders sends again once
answered. The run stops at --duration or --count, whichever comes first; Ctrl-C stops it
and prints the report so far (exit 130).

Each request is an intent of --mix in turn (by weight, evenly spread), with the cards and
channels in turn, so the intents sent are the mix. A reversal reverses the oldest approved
authorization or financial of the run not yet reversed; while there is none it waits for one,
as long as one may still come (one in flight, or a sender free to send one). One that never
comes is not sent, and the report counts it under "Not sent" with its reason.

On a terminal stderr shows a live line: requests sent (and their rate), in flight, answered,
approvals, declines, timeouts, the webhook's p99. The report: requests, response codes, the
declines by who decided (the sandbox's own checks such as daily limits, by response code; the
webhook; the network's stand-in, by cause: timeout, unreachable, no webhook URL, invalid reply),
stand-ins, timeouts, the webhook's latency (its usable replies, and its timeouts at the deadline:
an error status or an invalid reply is no reply and no latency) and the end-to-end latency, as p50/p90/p99/max against the network's deadline, and the achieved rate.
-o json gives it as JSON. A missed SLO (--max-p99, --max-timeouts, --min-approval) prints one
line each and exits 5; an SLO with no samples is missed: the webhook's when no usable reply from
it arrived ("no webhook answered"), --min-approval when no request was answered.

--export artillery DIR writes the same traffic as an Artillery script instead of sending it,
for load past one machine (cardctl help load).`,
  flags: LOAD_FLAGS,
  examples: [
    'cardctl simulate load --rate 50/s --duration 30s --card 6650c0ffee --max-p99 1500ms --min-approval 95%',
    'cardctl simulate load --concurrency 8 --count 10000 --cards-from-list 20 --mix authorization=80,financial=15,reversal=5 -o json',
    'cardctl simulate load --rate 500/s --ramp 30s --duration 5m --cards-from-list 200 --max-p99 1500ms --export artillery ./load',
  ],
  parse: async ({ opts }) => (await import('../../load/run.js')).parseLoad(opts),
  run: async (ctx, input) => (await import('../../load/run.js')).runLoad(ctx, input),
});
