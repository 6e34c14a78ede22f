// POST /institutions/{switch}/simulate. The simulator answers with its own envelope
// ({status, message, data}), so it is read without the usual envelope unwrapping.
import { ServerError } from '../core/errors.js';
import type { ApiClient, ApiResponse } from './client.js';
import type { SimulateBody, SimulateEnvelope } from './schemas.js';

export const DEFAULT_SWITCH = 'switch';

export function simulatePath(switchSegment: string = DEFAULT_SWITCH): string {
  return `/institutions/${encodeURIComponent(switchSegment || DEFAULT_SWITCH)}/simulate`;
}

/** Runs one simulation. Not retried: a repeat would be a second transaction. */
export async function simulate(client: ApiClient, body: SimulateBody, options: { switchSegment?: string; signal?: AbortSignal } = {}): Promise<ApiResponse<SimulateEnvelope>> {
  const path = simulatePath(options.switchSegment);
  const response = await client.request<SimulateEnvelope>({ method: 'POST', path, body, envelope: false, idempotent: false, signal: options.signal });
  const answer = response.data as Partial<SimulateEnvelope> | undefined;
  if (!answer || typeof answer !== 'object' || !answer.data || typeof answer.data !== 'object' || typeof answer.data.responseCode !== 'string') {
    throw new ServerError(`POST ${path}: the answer is not a simulator result ({status, message, data: {responseCode, …}})`, { status: response.status });
  }
  return response;
}
