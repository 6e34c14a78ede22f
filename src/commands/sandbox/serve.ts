import { defineCommand, notImplemented } from '../../core/command.js';

export default defineCommand({
  name: 'serve',
  summary: 'run a local, stateful implementation of the whole API',
  options: (c) => c
    .option('--port <n>', 'port (0 = any free port)', '4010')
    .option('--host <host>', 'address to bind (anything but loopback prints a warning)', '127.0.0.1')
    .option('--db <file>', 'SQLite database file (default: in the user data directory)')
    .option('--memory', 'keep everything in memory')
    .option('--webhook-url <url>', "webhook URL of the seeded card program")
    .option('--faults <spec>', 'inject faults, e.g. rate=0.1,codes=500|503,latency=0-800ms')
    .option('--faults-seed <n>', 'seed for the fault injector (replayable runs)')
    .option('--token-ttl <seconds>', 'lifetime of OAuth access tokens (default 3600)')
    .option('--quiet-log', 'no request log on stderr'),
  examples: ['cardctl sandbox serve --profile sandbox', 'cardctl sandbox serve --port 0 --memory --json'],
  run: notImplemented('sandbox serve'),
});
