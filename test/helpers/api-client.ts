// What the ApiClient tests share: a client's settings for a local test server, and the answers
// and failures they check.
import { expect } from 'vitest';
import type { ClientOptions } from '../../src/api/client.js';
import { CliError } from '../../src/core/errors.js';
import { envelope } from './http-server.js';

/** A client of `baseUrl` with fixed secrets, 2 retries, no jitter, no environment, and no real waiting: each wait goes into `waits`. */
export function testClientOptions(baseUrl: string, waits: number[]): ClientOptions {
  return {
    baseUrl,
    getToken: async () => 'tok_secret_value_123',
    apiKey: 'key_secret_value_456',
    retries: 2,
    timeoutMs: 5_000,
    sleep: async (ms) => void waits.push(ms),
    random: () => 0.5,
    env: {},
  };
}

/** The CliError a request fails with; the test fails when the request succeeds. */
export async function failure(promise: Promise<unknown>): Promise<CliError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    return error as CliError;
  }
  throw new Error('expected the request to fail');
}

/** A handler answering 200 with the API envelope around `data`. */
export const ok = (data: unknown = []) => (_req: unknown, res: Parameters<typeof envelope>[0]) => envelope(res, data);
