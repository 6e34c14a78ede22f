import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'keygen',
  summary: 'create an RSA key and a self-signed certificate for `oauth create`',
  options: (c) => c
    .option('--out <dir>', 'directory for private-key.pem and certificate.pem', '.')
    .option('--subject <cn>', 'certificate subject common name', 'cardctl-app')
    .option('--days <n>', 'validity in days', '365')
    .option('--bits <n>', 'RSA key size (2048 or more)', '2048')
    .option('--force', 'overwrite existing files'),
  examples: ['cardctl oauth keygen --out ./keys --subject reconciler'],
  run: notImplemented('oauth keygen'),
});
