// The flags of `simulate load` (their own file: the command and its run both need them).
import { defineFlags } from '../core/flags.js';
import { CHANNELS } from '../core/enums.js';

export const LOAD_FLAGS = defineFlags({
  rate: { type: 'string', value: 'n/s', description: 'open loop: send N requests a second on schedule, whatever the answers, e.g. 50/s' },
  ramp: { type: 'string', value: 'duration', description: 'open loop: rise linearly from 0 to --rate over this long first, then --duration at the rate, e.g. 30s' },
  concurrency: { type: 'string', value: 'n', description: 'closed loop: N requests in flight, each sent when the last answer arrives' },
  duration: { type: 'string', value: 'duration', description: 'stop after this long, e.g. 30s, 5m (at most 1h; default 10s without --count)' },
  count: { type: 'string', value: 'n', description: 'stop after N requests (at most 10,000,000)' },
  mix: { type: 'string', value: 'intent=weight,...', description: 'intents by weight, e.g. authorization=80,financial=15,reversal=5 (default authorization)' },
  mixFile: { type: 'string', value: 'path', complete: 'file', description: 'the mix as a YAML or JSON map of intent to weight' },
  card: { type: 'list', value: 'card-id', repeat: 'each', description: 'a card to use, in turn (repeatable)' },
  cardsFromList: { type: 'string', value: 'n', description: 'use the first N cards of `cards list`, in turn' },
  channel: { type: 'list', value: 'channel', repeat: 'each', choices: CHANNELS, description: 'a channel to use, in turn (repeatable; default pos)' },
  amount: { type: 'string', value: 'amount', default: '10.00', description: 'amount of each request, in major units' },
  maxP99: { type: 'string', value: 'duration', description: "SLO: the webhook's p99 latency at most this, e.g. 1500ms (exit 5 when missed)" },
  maxTimeouts: { type: 'string', value: 'percent', description: 'SLO: webhook timeouts at most this share of requests, e.g. 0.1% (exit 5 when missed)' },
  maxErrors: { type: 'string', value: 'percent', description: 'SLO: requests without a valid answer from the webhook (HTTP error, invalid reply, unreachable, timeout) at most this share, e.g. 0.1% (exit 5 when missed; 0% in an export unless given)' },
  minApproval: { type: 'string', value: 'percent', description: 'SLO: approvals at least this share of requests, e.g. 95% (exit 5 when missed)' },
  export: { type: 'list', value: 'format dir', repeat: 'variadic', mcp: false, complete: ['artillery'], description: 'write the traffic as a load script instead of sending it: `artillery DIR` (a new directory; docs/load-past-one-machine.md)' },
  url: { type: 'string', value: 'url', mcp: false, description: "with --export: send to this webhook URL rather than the card program's" },
  allowRemote: { type: 'boolean', mcp: false, description: 'allow a base URL that is not on this machine (load against a real deployment is dangerous)' },
});
