// A sandbox process that forwards switch messages to a webhook and signs them, as the e2e tests
// of the card lifecycle and of advice retries start one; and the environment that points cardctl
// at it.
import { expect } from 'vitest';
import { call } from '../sandbox/helpers.js';
import { startSandboxProcess, type RunningSandbox } from './cli.js';

/** `sandbox serve --webhook-url webhookUrl`, its card program signing webhook calls with `secret`. */
export async function startSigningSandbox(webhookUrl: string, secret: string, configDir: string): Promise<{ sandbox: RunningSandbox; env: Record<string, string> }> {
  const sandbox = await startSandboxProcess(['--webhook-url', webhookUrl], { configDir });
  try {
    const signing = await call(sandbox.info, 'PUT', `/sandbox/card-programs/${sandbox.info.cardProgramId}`, { token: sandbox.info.token, body: { webHookConfig: { secret } } });
    expect(signing.status, signing.text).toBe(200);
  } catch (error) {
    await sandbox.stop();
    throw error;
  }
  return { sandbox, env: { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_TOKEN: sandbox.info.token } };
}
