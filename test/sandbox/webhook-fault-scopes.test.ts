// Faults on the webhook path belong to whoever set them: the caller's institution, or one of its
// card programs. Another institution's messages, and another program's with faults of its own,
// never get them; a program's own faults stand until it inherits its institution's again.
import { beforeEach, describe, expect, it } from 'vitest';
import { call, type Sandbox, fieldErrorsOf, type DataEnvelope, type WebhookFaultState } from './helpers.js';
import { auth, cardOf, createProgram, simulate, updateProgram, useForwardSandbox } from './switch-helpers.js';
import type { Transaction, SandboxInstitutionCredentials } from '../../src/api/schemas.js';

const env = useForwardSandbox();

/** The sandbox as another institution sees it: its token and its own program, calling the same webhook. */
async function otherInstitution(): Promise<Sandbox> {
  const created = (await call<DataEnvelope<SandboxInstitutionCredentials>>(env.sb, 'POST', '/sandbox/institutions', { body: { name: `Other ${Math.random().toString(36).slice(2, 8)}` } })).body.data;
  const other = { ...env.sb, token: created.token as string, cardProgramId: created.cardProgramId as string };
  await updateProgram(other, other.cardProgramId, { webHookConfig: { url: env.hook.url } });
  return other;
}

async function faults(sb: Sandbox, body: Record<string, unknown>) {
  const response = await call<WebhookFaultState>(sb, 'PUT', '/sandbox/webhook-faults', { token: sb.token, body });
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** The faults one forwarded authorization of `cardId` got, as recorded on it. */
async function faultsOf(sb: Sandbox, cardId: string): Promise<string[]> {
  const sent = await simulate(sb, auth(cardId, { responseMode: 'forward', amount: 1 }));
  expect(sent.status, sent.text).toBe(200);
  const stored = await call<DataEnvelope<Transaction>>(sb, 'GET', `/institutions/transactions/${sent.body.data.transactionId}`, { token: sb.token });
  return stored.body.data.webhookFaults ?? [];
}

beforeEach(async () => {
  await faults(env.sb, {});
});

describe('PUT /sandbox/webhook-faults is scoped', () => {
  it("an institution's faults reach its own messages only, never another institution's", async () => {
    const other = await otherInstitution();
    const mine = await cardOf(env.sb, env.programId);
    const theirs = await cardOf(other);
    await faults(env.sb, { duplicate: 1 });
    expect(await faultsOf(env.sb, mine.id)).toEqual(['duplicate']);
    expect(await faultsOf(other, theirs.id)).toEqual([]);
    // And the other way round: theirs do not reach mine.
    await faults(env.sb, {});
    await faults(other, { spec: 'reply-lost=1' });
    expect(await faultsOf(other, theirs.id)).toEqual(['reply-lost']);
    expect(await faultsOf(env.sb, mine.id)).toEqual([]);
    expect((await call<WebhookFaultState>(env.sb, 'GET', '/sandbox/webhook-faults', { token: env.sb.token })).body).toMatchObject({ spec: 'deadline=5000ms' });
  });

  it("a program's own faults replace its institution's for its messages only, until it inherits them again", async () => {
    const program = await createProgram(env.sb, { webHookConfig: { url: env.hook.url } });
    const onProgram = await cardOf(env.sb, program.id);
    const elsewhere = await cardOf(env.sb, env.programId);
    await faults(env.sb, { duplicate: 1 });
    expect(await faults(env.sb, { programId: program.id, spec: 'signature=missing', seed: 4 })).toEqual({ spec: 'deadline=5000ms,signature=missing', seed: 4, own: true });
    expect(await faultsOf(env.sb, onProgram.id)).toEqual(['signature missing']);
    expect(await faultsOf(env.sb, elsewhere.id)).toEqual(['duplicate']);
    expect((await call<WebhookFaultState>(env.sb, 'GET', '/sandbox/webhook-faults', { token: env.sb.token })).body.programs)
      .toEqual([{ programId: program.id, spec: 'deadline=5000ms,signature=missing', seed: 4 }]);

    // No faults of its own (spec '') is still its own: the institution's do not reach it.
    await faults(env.sb, { programId: program.id, spec: '' });
    expect(await faultsOf(env.sb, onProgram.id)).toEqual([]);

    expect(await faults(env.sb, { programId: program.id, inherit: true })).toMatchObject({ spec: 'deadline=5000ms,duplicate=1', own: false });
    expect(await faultsOf(env.sb, onProgram.id)).toEqual(['duplicate']);
    expect((await call<WebhookFaultState>(env.sb, 'GET', '/sandbox/webhook-faults', { token: env.sb.token })).body.programs).toEqual([]);
  });

  it("another institution's program is not found; no token is a 401; inherit goes alone, with a program", async () => {
    const other = await otherInstitution();
    const foreign = await call<WebhookFaultState>(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body: { programId: other.cardProgramId, duplicate: 1 } });
    expect(foreign.status).toBe(404);
    expect((await call<WebhookFaultState>(env.sb, 'GET', `/sandbox/webhook-faults?programId=${other.cardProgramId}`, { token: env.sb.token })).status).toBe(404);
    expect((await call<WebhookFaultState>(env.sb, 'PUT', '/sandbox/webhook-faults', { body: { duplicate: 1 } })).status).toBe(401);
    expect((await call<WebhookFaultState>(env.sb, 'GET', '/sandbox/webhook-faults')).status).toBe(401);
    for (const body of [{ inherit: true }, { programId: env.programId, inherit: true, duplicate: 1 }, { programId: env.programId, inherit: false }]) {
      const refused = await call<WebhookFaultState>(env.sb, 'PUT', '/sandbox/webhook-faults', { token: env.sb.token, body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(fieldErrorsOf(refused)[0].field).toBe('inherit');
    }
  });
});
