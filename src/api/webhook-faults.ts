// The one way the CLI installs faults on a sandbox's webhook path (`webhook certify`, a scenario
// step's `webhookFaults`): install, run, put back, and put back also when the run is interrupted
// (Ctrl-C, SIGTERM, SIGHUP abort the run's signal; src/app/run-cli.ts), through a request of its
// own, since the run's client and signal are aborted by then. The faults are the caller's
// institution's, or one of its card programs' (`programId`): other tenants, and other runs on
// their own programs, never get them (docs/sandbox-api.md#faults-on-the-webhook-path).
import type { ApiClient } from './client.js';
import { getWebhookFaults } from './simulate.js';

/** How long putting back what a run changed may take (faults, a scenario's stand-in policies): an interrupted run is ended 5 s after the signal. */
export const FAULTS_RESTORE_TIMEOUT_MS = 3_000;

export interface WebhookFaultsToInstall {
  /** The text form, e.g. `reply-lost=1`; '' for none. */
  spec: string;
  seed?: number | undefined;
  /** One card program's messages only (of the caller's institution); else every message of the institution. */
  programId?: string | undefined;
}

/**
 * Runs `work` with `faults` installed, then puts back what the scope had before (a program's own
 * faults, or its institution's again), whether `work` succeeded, failed or was interrupted.
 */
export async function withWebhookFaults<T>(client: ApiClient, faults: WebhookFaultsToInstall, work: () => Promise<T>, signal: AbortSignal): Promise<T> {
  const { programId } = faults;
  const before = (await getWebhookFaults(client, { programId, signal })).data!;
  const restore = programId !== undefined && before.own === false ? { programId, inherit: true } : { programId, spec: before.spec, seed: before.seed };
  let result: T;
  try {
    // Inside the try: an install interrupted after the sandbox applied it is put back too.
    await putWebhookFaults(client, { programId, spec: faults.spec, seed: faults.seed }, signal);
    result = await work();
  } catch (error) {
    // The run's own failure (or interruption) is what the caller reports; the faults go back regardless.
    await putBack(client, restore).catch(() => undefined);
    throw error;
  }
  await putBack(client, restore);
  return result;
}

async function putBack(client: ApiClient, restore: Record<string, unknown>): Promise<void> {
  const cleanup = client.forCleanup(FAULTS_RESTORE_TIMEOUT_MS);
  try {
    await putWebhookFaults(cleanup, restore, AbortSignal.timeout(FAULTS_RESTORE_TIMEOUT_MS));
  } finally {
    await cleanup.close();
  }
}

/** PUT /sandbox/webhook-faults (loopback, bearer); private: installing goes through withWebhookFaults. */
async function putWebhookFaults(client: ApiClient, body: Record<string, unknown>, signal: AbortSignal): Promise<void> {
  const defined = Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
  await client.request({ method: 'PUT', path: '/sandbox/webhook-faults', body: defined, envelope: false, idempotent: true, signal });
}
