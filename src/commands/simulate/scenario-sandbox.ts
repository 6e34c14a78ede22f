// What `simulate run` needs of the sandbox beyond simulations (src/scenario/runner.ts
// SandboxHooks): lifecycle messages, repeats, expiry, the clock, advice delivery, a program's
// stand-in policy, the faults on the webhook path, and the state after a step — the stored
// transaction, its lifecycle, the sandbox's record of its webhook exchanges, and what the webhook
// received (asked of `webhook listen`, the only webhook that says).
import type { ApiClient } from '../../api/client.js';
import type { StandInPolicy, WebhookExchange } from '../../api/schemas.js';
import type { Context } from '../../contract/context.js';
import { UsageError } from '../../core/errors.js';
import type { SandboxHooks, StatePart, StepResult } from '../../scenario/runner.js';

export function scenarioSandbox(ctx: Context): SandboxHooks {
  const api = () => Promise.all([import('../../api/simulate.js'), ctx.client()]);
  let webhookUrl: Promise<string | undefined> | undefined;
  return {
    async lifecycle(body) {
      const [{ sendLifecycleMessage }, client] = await api();
      return (await sendLifecycleMessage(client, body, { signal: ctx.signal })).data;
    },
    async repeat(id, forward) {
      const [{ repeatMessage }, client] = await api();
      return (await repeatMessage(client, id, { forward, signal: ctx.signal })).data;
    },
    async expire(id) {
      const [{ expireHold }, client] = await api();
      return (await expireHold(client, id, { signal: ctx.signal })).data;
    },
    async advanceClock(seconds) {
      const [{ advanceSwitchClock }, client] = await api();
      return (await advanceSwitchClock(client, seconds, { signal: ctx.signal })).data;
    },
    async deliverAdvices() {
      const [{ deliverAdvices }, client] = await api();
      return (await deliverAdvices(client, { signal: ctx.signal })).data;
    },
    async standIn(program) {
      const { listCardPrograms } = await import('../../api/cards.js');
      const programs = await listCardPrograms(await ctx.client(), ctx.signal);
      return programs?.find((p) => p.id === program || p._id === program)?.standIn;
    },
    async setStandIn(program: string, standIn: StandInPolicy, options = {}) {
      const [{ setStandIn }, client] = await api();
      if (!options.restore) {
        await setStandIn(client, program, standIn, { signal: ctx.signal });
        return;
      }
      // Putting back happens after a signal too, when the run's client and signal are aborted.
      const { FAULTS_RESTORE_TIMEOUT_MS } = await import('../../api/webhook-faults.js');
      const cleanup = client.forCleanup(FAULTS_RESTORE_TIMEOUT_MS);
      try {
        await setStandIn(cleanup, program, standIn, { signal: AbortSignal.timeout(FAULTS_RESTORE_TIMEOUT_MS) });
      } finally {
        await cleanup.close();
      }
    },
    async withWebhookFaults(faults, work) {
      const [{ withWebhookFaults }, client] = await Promise.all([import('../../api/webhook-faults.js'), ctx.client()]);
      return withWebhookFaults(client, faults, work, ctx.signal);
    },
    async state(result, parts) {
      const id = result.transactionId;
      if (!id) throw new UsageError('expectations on transaction, lifecycle, exchanges or webhook need a step that produced a transaction');
      const [{ getLifecycle }, client] = await api();
      const state: Partial<Pick<StepResult, StatePart>> = {};
      // The webhook is asked by STAN and RRN: a `check` step knows only the transaction's id.
      if (parts.has('transaction') || (parts.has('webhook') && !result.stan)) {
        const { getTransaction } = await import('../../api/transactions.js');
        state.transaction = (await getTransaction(client, id, { signal: ctx.signal })).data;
      }
      if (parts.has('lifecycle')) state.lifecycle = (await getLifecycle(client, id, { signal: ctx.signal })).data;
      if (parts.has('exchanges')) state.exchanges = await recordedExchanges(client, id, ctx.signal);
      if (parts.has('webhook')) {
        webhookUrl ??= programWebhookUrl(ctx);
        state.webhook = await received(await webhookUrl, result.stan ?? state.transaction?.stan ?? '', result.rrn ?? state.transaction?.rrn ?? '', ctx.signal);
      }
      return state;
    },
  };
}

/** The sandbox's exchange log of the transaction and the messages linked to it, oldest first. */
async function recordedExchanges(client: ApiClient, transactionId: string, signal: AbortSignal): Promise<WebhookExchange[]> {
  const { listAllWebhookExchanges } = await import('../../api/webhook-exchanges.js');
  const newestFirst: WebhookExchange[] = [];
  for await (const page of listAllWebhookExchanges(client, { transactionId }, signal)) newestFirst.push(...page.records());
  return newestFirst.reverse();
}

/** The webhook of the sandbox's card program (the one `simulate --forward` calls). */
async function programWebhookUrl(ctx: Context): Promise<string | undefined> {
  const { listCardPrograms } = await import('../../api/cards.js');
  const programs = await listCardPrograms(await ctx.client(), ctx.signal);
  return programs?.map((program) => program.webHookConfig?.url).find((url) => Boolean(url));
}

/** GET <webhook>/exchanges?stan&rrn of `webhook listen`: what it received of this transaction. */
async function received(url: string | undefined, stan: string, rrn: string, signal: AbortSignal): Promise<unknown> {
  if (!url) throw new UsageError('webhook expectations need a card program with a webhook URL (`sandbox serve --webhook-url`)');
  const { loadUndici } = await import('../../api/client.js');
  const { request } = await loadUndici();
  const target = new URL(url);
  target.pathname = `${target.pathname.replace(/\/$/, '')}/exchanges`;
  target.search = new URLSearchParams({ stan, rrn }).toString();
  const response = await request(target, { method: 'GET', signal });
  const text = await response.body.text();
  let answer: unknown;
  try {
    if (response.statusCode === 200) answer = JSON.parse(text);
  } catch { /* reported below */ }
  // Only `webhook listen`'s account will do: a handler's own 200 to any GET (a health check) is not one.
  if (isListenerAccount(answer)) return answer;
  const answered = response.statusCode === 200 ? '200 without what `webhook listen` answers there' : String(response.statusCode);
  throw new UsageError(`the webhook at ${url} does not say what it received (GET ${target.pathname} answered ${answered}): webhook.* expectations are what \`cardctl webhook listen\` received and need it as the webhook; expect exchanges.* (the sandbox's own record of each call) with any other handler`);
}

function isListenerAccount(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'deliveries' in value && typeof value.deliveries === 'number' && 'messages' in value && Array.isArray(value.messages);
}
