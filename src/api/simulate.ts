// POST /institutions/{switch}/simulate, and the sandbox's lifecycle extensions (docs/switch.md).
// The simulator answers with its own envelope ({status, message, data}), so it is read without
// the usual envelope unwrapping.
import { ServerError } from '../core/errors.js';
import type { ApiClient, ApiResponse } from './client.js';
import type { CardPool, CardProgram, Lifecycle, LifecycleBody, SimulateBody, SimulateEnvelope, StandInPolicy, Transaction } from './schemas.js';

export const DEFAULT_SWITCH = 'switch';

export function simulatePath(switchSegment: string = DEFAULT_SWITCH): string {
  return `/institutions/${encodeURIComponent(switchSegment || DEFAULT_SWITCH)}/simulate`;
}

/** Runs one simulation. Not retried: a repeat would be a second transaction. */
export async function simulate(client: ApiClient, body: SimulateBody, options: { switchSegment?: string; signal?: AbortSignal } = {}): Promise<ApiResponse<SimulateEnvelope>> {
  return simulatorAnswer(client, simulatePath(options.switchSegment), body, options.signal);
}

// ---------- the lifecycle (sandbox extensions, docs/switch.md) ----------

/** POST /sandbox/switch/messages: an increment, completion, refund or advice. Not retried, like simulate. */
export async function sendLifecycleMessage(client: ApiClient, body: LifecycleBody, options: { signal?: AbortSignal } = {}): Promise<ApiResponse<SimulateEnvelope>> {
  return simulatorAnswer(client, '/sandbox/switch/messages', body, options.signal);
}

/** POST /sandbox/transactions/{id}/repeat: the network resends a message whose answer it did not see. */
export async function repeatMessage(client: ApiClient, id: string, options: { forward?: boolean; signal?: AbortSignal } = {}): Promise<ApiResponse<SimulateEnvelope>> {
  const body = { responseMode: options.forward ? 'forward' : 'stub' };
  return simulatorAnswer(client, `/sandbox/transactions/${encodeURIComponent(id)}/repeat`, body, options.signal);
}

/** POST /sandbox/transactions/{id}/expire: releases an authorization's hold now. */
export async function expireHold(client: ApiClient, id: string, options: { signal?: AbortSignal } = {}): Promise<ApiResponse<Transaction>> {
  return client.request<Transaction>({ method: 'POST', path: `/sandbox/transactions/${encodeURIComponent(id)}/expire`, idempotent: false, signal: options.signal });
}

/** GET /sandbox/transactions/{id}/lifecycle: the original of `id` and every linked message. */
export async function getLifecycle(client: ApiClient, id: string, options: { signal?: AbortSignal } = {}): Promise<ApiResponse<Lifecycle>> {
  return client.request<Lifecycle>({ method: 'GET', path: `/sandbox/transactions/${encodeURIComponent(id)}/lifecycle`, signal: options.signal });
}

/** The switch's clock as GET|POST /sandbox/switch/clock answer it. */
export interface SwitchClock {
  now: string;
  offsetSeconds: number;
  /** Holds released by this call. */
  expired: number;
}

/** GET /sandbox/switch/clock (loopback, no credentials). */
export async function readSwitchClock(client: ApiClient, options: { signal?: AbortSignal } = {}): Promise<ApiResponse<SwitchClock>> {
  return client.request<SwitchClock>({ method: 'GET', path: '/sandbox/switch/clock', auth: 'none', envelope: false, signal: options.signal });
}

/** POST /sandbox/switch/clock (loopback, no credentials): moves the switch's clock forward; due holds expire. */
export async function advanceSwitchClock(client: ApiClient, advanceSeconds: number, options: { signal?: AbortSignal } = {}): Promise<ApiResponse<SwitchClock>> {
  return client.request<SwitchClock>({ method: 'POST', path: '/sandbox/switch/clock', body: { advanceSeconds }, auth: 'none', envelope: false, idempotent: false, signal: options.signal });
}

/** POST /sandbox/switch/advices/deliver (loopback): one delivery attempt of every unacknowledged advice. */
export async function deliverAdvices(client: ApiClient, options: { signal?: AbortSignal } = {}): Promise<ApiResponse<{ delivered: number; pending: number }>> {
  return client.request({ method: 'POST', path: '/sandbox/switch/advices/deliver', body: {}, auth: 'none', envelope: false, idempotent: true, signal: options.signal });
}

/** The faults on the webhook path as GET|PUT /sandbox/webhook-faults answer them (an institution's, or with programId one program's). */
export interface WebhookFaultsState {
  spec: string;
  seed: number;
  /** A program's: faults of its own (false: its institution's apply). */
  own?: boolean;
  /** An institution's: its programs with faults of their own. */
  programs?: Array<{ programId: string; spec: string; seed: number }>;
}

/** GET /sandbox/webhook-faults (loopback, bearer): the faults of the caller's institution now, or of one of its programs. */
export async function getWebhookFaults(client: ApiClient, options: { programId?: string | undefined; signal?: AbortSignal } = {}): Promise<ApiResponse<WebhookFaultsState>> {
  const query = options.programId === undefined ? undefined : { programId: options.programId };
  return client.request<WebhookFaultsState>({ method: 'GET', path: '/sandbox/webhook-faults', query, envelope: false, signal: options.signal });
}

/** PUT /sandbox/card-programs/{id} with only `standIn`: what the network does when the webhook gives no usable answer. */
export async function setStandIn(client: ApiClient, programId: string, standIn: StandInPolicy, options: { signal?: AbortSignal } = {}): Promise<ApiResponse<CardProgram>> {
  return client.request<CardProgram>({ method: 'PUT', path: `/sandbox/card-programs/${encodeURIComponent(programId)}`, body: { standIn }, idempotent: true, signal: options.signal });
}

async function simulatorAnswer(client: ApiClient, path: string, body: unknown, signal?: AbortSignal): Promise<ApiResponse<SimulateEnvelope>> {
  const response = await client.request<SimulateEnvelope>({ method: 'POST', path, body, envelope: false, idempotent: false, signal });
  const answer = response.data as Partial<SimulateEnvelope> | undefined;
  if (!answer || typeof answer !== 'object' || !answer.data || typeof answer.data !== 'object' || typeof answer.data.responseCode !== 'string') {
    throw new ServerError(`POST ${path}: the answer is not a simulator result ({status, message, data: {responseCode, …}})`, { status: response.status });
  }
  return response;
}

/**
 * POST /sandbox/card-pool: the cards in the clear, as the switch puts them into messages, and
 * their programs' webhook settings without the secrets (`simulate load --export artillery`).
 * Its card numbers are not masked: the caller writes them to a 0600 file and shows none.
 */
export async function getCardPool(client: ApiClient, cardIds: readonly string[], signal?: AbortSignal): Promise<ApiResponse<CardPool>> {
  return client.request<CardPool>({ method: 'POST', path: '/sandbox/card-pool', body: { cardIds }, idempotent: true, clearCardData: true, ...(signal ? { signal } : {}) });
}
