import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'set',
  summary: 'set a profile setting',
  description: 'Set one setting of the selected profile. Secrets (token, API key) are not settable here: use `cardctl login`.',
  arguments: [
    { syntax: '<key>', description: 'setting: baseUrl, switch, output, env, pinBlockFormat, pinCipher, tokenUrl, clientId, privateKeyPath, requireExplicitProfile, requireReason' },
    { syntax: '<value>', description: 'new value' },
  ],
  examples: ['cardctl profile set switch acme', 'cardctl profile set output json', 'cardctl -p prod profile set env production'],
  run: notImplemented('profile set'),
});
