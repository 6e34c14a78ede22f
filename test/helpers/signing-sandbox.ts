// The e2e set-ups of the webhook path: a sandbox process that forwards switch messages to a
// webhook (signed, or with `webhook listen` unsigned), the environment that points cardctl at it,
// and cardctl run against it.
import { afterAll, beforeAll, expect } from 'vitest';
import { call } from '../sandbox/helpers.js';
import { cardctl, startSandboxProcess, startWebhookListener, tempDir, type RunningSandbox, type WebhookListener } from './cli.js';

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

/**
 * cardctl against one sandbox, in one config directory, as the e2e tests of the webhook path run
 * it: `run` answers the result; `json` runs a command that must succeed and answers its JSON.
 * `session` is read at each call (the directory and the sandbox are made in beforeAll).
 */
export function cliSession(session: () => { configDir: string; env: Record<string, string> }) {
  const run = (args: string[]) => cardctl(args, { configDir: session().configDir, env: session().env, timeout: 60_000 });
  const json = async <T = unknown>(args: string[]): Promise<T> => {
    const result = await run([...args, '-o', 'json']);
    expect(result.exitCode, `${args.join(' ')}\n${result.stderr}`).toBe(0);
    return JSON.parse(result.stdout);
  };
  return { run, json };
}

/** `webhook listen` and a sandbox process whose card program calls it, made by useListenerSandbox. */
export class ListenerSandbox {
  config!: { path: string; remove(): void };
  listener!: WebhookListener;
  sandbox!: RunningSandbox;
}

/** For the tests of one file or describe: a listener and a sandbox calling it (unsigned), stopped after them. */
export function useListenerSandbox(): ListenerSandbox {
  const fixture = new ListenerSandbox();
  beforeAll(async () => {
    fixture.config = tempDir();
    fixture.listener = await startWebhookListener({ configDir: fixture.config.path });
    fixture.sandbox = await startSandboxProcess(['--webhook-url', fixture.listener.url], { configDir: fixture.config.path });
  }, 60_000);
  afterAll(async () => {
    await fixture.sandbox?.stop();
    await fixture.listener?.stop();
    fixture.config?.remove();
  });
  return fixture;
}
