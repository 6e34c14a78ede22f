import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'listen',
  summary: "play the institution's webhook locally and answer switch messages",
  options: (c) => c
    .option('--port <n>', 'port to listen on (0 = any free port)', '4020')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--respond <code>', 'response code to answer with', '00')
    .option('--rules <file>', 'YAML/JSON rules: match amount, PAN suffix, processing code, channel → code, delay')
    .option('--secret-stdin', 'read the webhook signing secret from stdin')
    .option('--forward-to <url>', "relay each message to your own handler and show its reply"),
  examples: ['cardctl webhook listen --port 4020 --respond 00', 'cardctl webhook listen --rules rules.yaml --json'],
  run: notImplemented('webhook listen'),
});
