import { defineCommand, type ToolFlagValues } from '../../app/command.js';
import { parseDuration } from '../../core/duration.js';
import { UsageError } from '../../core/errors.js';
import { LOAD_FLAGS } from '../../load/flags.js';

/** An assistant's load run (`cardctl mcp`) is short: at most a minute and this many requests. */
const ASSISTANT_MAX_MS = 60_000;
const ASSISTANT_MAX_COUNT = 10_000;

/** The bounds of an assistant's load run; values the command refuses anyway are left to its own checks. */
function boundAssistantLoad(flags: ToolFlagValues): void {
  const { duration, count } = flags;
  if (count !== undefined && duration === undefined) {
    throw new UsageError('a load run through cardctl mcp with a count needs a duration too (at most 60s)', { hint: 'e.g. count "500" and duration "30s"' });
  }
  const ms = typeof duration === 'string' ? parseDuration(duration) : undefined;
  if (ms?.ok && ms.ms > ASSISTANT_MAX_MS) throw new UsageError(`duration ${String(duration)} is longer than the 60s a load run through cardctl mcp may take`);
  if (typeof count === 'string' && /^\d+$/.test(count.trim()) && Number(count) > ASSISTANT_MAX_COUNT) {
    throw new UsageError(`count ${count} is above the ${ASSISTANT_MAX_COUNT.toLocaleString('en')} requests a load run through cardctl mcp may send`);
  }
}

export default defineCommand({
  name: 'load',
  mcp: { use: 'simulate', bound: boundAssistantLoad },
  output: async () => {
    const [{ outputShape }, { summaryKeys }] = await Promise.all([import('../../output/shape.js'), import('../../output/shapes.js')]);
    return outputShape(summaryKeys<import('../../load/stats.js').LoadReport>({
      target: true, requests: true, approved: true, declined: true, standIns: true, timeouts: true, errors: true, intents: true, notSent: true,
      responseCodes: true, declinedBy: true, webhookReplies: true, webhookFailures: true, deadlineMs: true, latencyMs: true, achievedRate: true,
      elapsedMs: true, interrupted: true,
    }));
  },
  summary: "drive the sandbox switch and your webhook at a rate or a concurrency; latency and SLOs",
  description: `Sends simulations in forward mode (the card program's webhook answers) to the profile's
base URL, which must be on this machine unless --allow-remote.

Open loop (--rate 50/s): request i is due at i/rate seconds and sent then whatever the answers,
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
stand-ins, timeouts, the webhook's latency (its replies, and its timeouts at the deadline) and the
end-to-end latency, as p50/p90/p99/max against the network's deadline, and the achieved rate.
-o json gives it as JSON. A missed SLO (--max-p99, --max-timeouts, --min-approval) prints one
line each and exits 5; an SLO with no samples is missed: the webhook's when no reply from it
arrived ("no webhook answered"), --min-approval when no request was answered.`,
  flags: LOAD_FLAGS,
  examples: [
    'cardctl simulate load --rate 50/s --duration 30s --card 6650c0ffee --max-p99 1500ms --min-approval 95%',
    'cardctl simulate load --concurrency 8 --count 10000 --cards-from-list 20 --mix authorization=80,financial=15,reversal=5 -o json',
  ],
  parse: async ({ opts }) => (await import('../../load/run.js')).parseLoad(opts),
  run: async (ctx, input) => (await import('../../load/run.js')).runLoad(ctx, input),
});
