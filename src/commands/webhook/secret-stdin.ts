// `--secret-stdin` of `webhook listen` and `webhook certify`: the webhook secret, the first line
// of a pipe. Never typed on a terminal, where it would be shown on the screen.
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
