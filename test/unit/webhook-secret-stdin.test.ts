// `--secret-stdin` of `webhook listen` and `webhook certify`: the first line of a pipe; a terminal
// is refused before anything is read (a typed secret would be shown), an empty pipe is a usage error.
import { describe, expect, it } from 'vitest';
import { main } from '../../src/app/cli.js';
import { bufferedIO } from '../../src/core/buffered-io.js';
import { readSecretStdin, webhookSecret } from '../../src/commands/webhook/secret-stdin.js';

describe('--secret-stdin', () => {
  it('reads the first line of a pipe, trimmed', async () => {
    expect(await readSecretStdin(bufferedIO({ stdin: '  whsec_abc \nrest\n' }), 'webhook listen')).toBe('whsec_abc');
  });

  it('an empty pipe is a usage error naming the command to pipe into', async () => {
    await expect(readSecretStdin(bufferedIO({ stdin: '' }), 'webhook listen'))
      .rejects.toMatchObject({ exitCode: 2, message: '--secret-stdin: stdin is empty; pipe the webhook secret in, e.g. echo "$SECRET" | cardctl webhook listen --secret-stdin' });
  });

  it.each([
    ['webhook', 'certify', '--url', 'http://127.0.0.1:9/hook', '--secret-stdin'],
    ['webhook', 'listen', '--port', '0', '--secret-stdin'],
  ])('a terminal is refused before reading: cardctl %s %s', async (...argv) => {
    const io = bufferedIO({ tty: true, stdin: 'typed-secret\n' });
    expect(await main(argv, { io, env: { CARDCTL_CONFIG_DIR: '/nonexistent/cardctl-test' }, signal: new AbortController().signal })).toBe(2);
    // A terminal gets colour: compare the text.
    expect(io.stderrText().replace(/\x1b\[[0-9;]*m/g, '')).toMatch(/--secret-stdin reads a pipe, and stdin is a terminal here \(what you type would be shown\)\nhint: pipe the webhook secret in, e\.g\. echo "\$SECRET" \| cardctl webhook (certify --url URL|listen) --secret-stdin/);
    expect(io.stdoutText()).toBe('');
  });

  it('without --secret-stdin the secret is CARDCTL_WEBHOOK_SECRET (stdin unread), else none', async () => {
    const io = bufferedIO({ stdin: 'from-stdin\n' });
    expect(await webhookSecret({ io, env: { CARDCTL_WEBHOOK_SECRET: ' whsec_env ' } }, false, 'webhook listen')).toBe('whsec_env');
    expect(await webhookSecret({ io, env: {} }, false, 'webhook listen')).toBeUndefined();
    expect(await webhookSecret({ io, env: { CARDCTL_WEBHOOK_SECRET: 'whsec_env' } }, true, 'webhook listen')).toBe('from-stdin');
  });
});
