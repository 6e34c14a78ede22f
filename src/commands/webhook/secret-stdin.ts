// The webhook secret of `webhook listen` and `webhook certify`: with `--secret-stdin` the first
// line of a pipe (never typed on a terminal, where it would be shown on the screen), else
// CARDCTL_WEBHOOK_SECRET. Never argv.
import { UsageError } from '../../core/errors.js';
import type { IOStreams } from '../../core/io.js';

/** The secret on stdin; `command` is the command line the hint shows (`webhook certify --url URL`). */
export async function readSecretStdin(io: IOStreams, command: string): Promise<string> {
  const example = `echo "$SECRET" | cardctl ${command} --secret-stdin`;
  if (io.stdinIsTTY) {
    throw new UsageError('--secret-stdin reads a pipe, and stdin is a terminal here (what you type would be shown)', { hint: `pipe the webhook secret in, e.g. ${example}` });
  }
  const { lineReader } = await import('../../core/io.js');
  const secret = (await lineReader(io.stdin).next())?.trim();
  if (!secret) throw new UsageError(`--secret-stdin: stdin is empty; pipe the webhook secret in, e.g. ${example}`);
  return secret;
}

/** The environment variable that gives the webhook secret when --secret-stdin is not given. */
export const WEBHOOK_SECRET_ENV = 'CARDCTL_WEBHOOK_SECRET';

/** The webhook secret: stdin with --secret-stdin, else CARDCTL_WEBHOOK_SECRET, else none. */
export async function webhookSecret(ctx: { io: IOStreams; env: Record<string, string | undefined> }, fromStdin: boolean, command: string): Promise<string | undefined> {
  if (fromStdin) return readSecretStdin(ctx.io, command);
  return ctx.env[WEBHOOK_SECRET_ENV]?.trim() || undefined;
}
