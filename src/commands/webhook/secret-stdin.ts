// The webhook secret of `webhook listen` and `webhook certify`: with `--secret-stdin` the first
// line of a pipe (never typed on a terminal, where it would be shown on the screen), else
// CARDCTL_WEBHOOK_SECRET. Never argv.
import { UsageError } from '../../core/errors.js';
import type { IOStreams } from '../../core/io.js';
import { isStandardSecret, STANDARD_SECRET_BYTES, type SignatureScheme } from '../../webhook-protocol/signature.js';

/** The secret on stdin; `command` is the command line the hint shows (`webhook certify --url URL`). */
export async function readSecretStdin(io: IOStreams, command: string, flag = '--secret-stdin'): Promise<string> {
  const example = `echo "$SECRET" | cardctl ${command} ${flag}`;
  if (io.stdinIsTTY) {
    throw new UsageError(`${flag} reads a pipe, and stdin is a terminal here (what you type would be shown)`, { hint: `pipe the webhook secret in, e.g. ${example}` });
  }
  const { lineReader } = await import('../../core/io.js');
  const secret = (await lineReader(io.stdin).next())?.trim();
  if (!secret) throw new UsageError(`${flag}: stdin is empty; pipe the webhook secret in, e.g. ${example}`);
  return secret;
}

/** The environment variable that gives the webhook secret when --secret-stdin is not given. */
export const WEBHOOK_SECRET_ENV = 'CARDCTL_WEBHOOK_SECRET';

/** The environment variable that gives a rotation's retired secret (`webhook certify`) when --previous-secret-stdin is not given. */
export const WEBHOOK_PREVIOUS_SECRET_ENV = 'CARDCTL_WEBHOOK_PREVIOUS_SECRET';

/**
 * A secret the scheme cannot sign with is a usage error, before anything is sent: a Standard
 * Webhooks secret is `whsec_` and the base64 of 24 to 64 bytes. `what` names where it came from.
 */
export function checkSecretForScheme(secret: string, scheme: SignatureScheme, what: string): string {
  if (scheme === 'standard-webhooks' && !isStandardSecret(secret)) {
    throw new UsageError(`${what} is not a Standard Webhooks secret: expected whsec_ and the base64 of ${STANDARD_SECRET_BYTES.min} to ${STANDARD_SECRET_BYTES.max} bytes`, {
      hint: 'use the secret the card program shows (`cardctl api GET /sandbox/card-programs`), or --scheme cardctl for any text secret',
    });
  }
  return secret;
}

/** The webhook secret: stdin with --secret-stdin, else CARDCTL_WEBHOOK_SECRET, else none. */
export async function webhookSecret(ctx: { io: IOStreams; env: Record<string, string | undefined> }, fromStdin: boolean, command: string): Promise<string | undefined> {
  if (fromStdin) return readSecretStdin(ctx.io, command);
  return ctx.env[WEBHOOK_SECRET_ENV]?.trim() || undefined;
}
