import { Option } from 'commander';
import { defineCommand, notImplemented } from '../core/command.js';

export default defineCommand({
  name: 'import',
  summary: 'import existing cards (one from flags, or many from a file)',
  description: `Import cards that already exist elsewhere (authenticated with the profile's API key).
Bulk: --from-file FILE (.csv with a header row, .ndjson, or a .json array; - for stdin with --format).
Rows are validated first (bad rows are reported with their line number and skipped), sent with
--concurrency requests in flight, and recorded in --report; --resume skips rows already imported.
Exit 8 when some rows failed.`,
  options: (c) => c
    .option('--from-file <file>', 'file of cards to import, or - for stdin')
    .addOption(new Option('--format <format>', 'file format (default: from the extension)').choices(['csv', 'ndjson', 'json']))
    .option('--concurrency <n>', 'requests in flight (default 8)')
    .option('--report <file>', 'NDJSON report: line, realId, outcome, card id or error')
    .option('--resume', 'skip rows the report already records as imported')
    .option('--real-id <id>', 'one card: its identifier in your system')
    .option('--active', 'one card: active')
    .option('--start-date <date>', 'one card: start date')
    .option('--end-date <date>', 'one card: end date')
    .option('--first-name <name>', 'one card: first name')
    .option('--middle-name <name>', 'one card: middle name')
    .option('--last-name <name>', 'one card: last name')
    .option('--email <address>', 'one card: email')
    .option('--phone <number>', 'one card: phone')
    .option('--birth-date <date>', 'one card: birth date')
    .option('--address1 <text>', 'one card: address line 1')
    .option('--address2 <text>', 'one card: address line 2')
    .option('--city <name>', 'one card: city')
    .option('--state <name>', 'one card: state')
    .option('--zip <code>', 'one card: postal code')
    .option('--country <code>', 'one card: country')
    .option('--institution-id <id>', "one card: institution (default: the API key's)")
    .option('--expiration <yyyymm>', 'one card: expiry YYYYMM')
    .option('--service-code <code>', 'one card: service code')
    .option('--card-product <name>', 'one card: card product')
    .option('--embossing-name <name>', 'one card: embossing name')
    .option('--bin <bin>', 'one card: BIN')
    .option('--card-state <state>', 'one card: card state')
    .option('--pin-stdin', 'one card: read the default PIN from stdin')
    .option('--return-secure', 'one card: return secure data'),
  examples: [
    'cardctl import --from-file cards.csv --report import-report.ndjson',
    'cardctl import --from-file cards.csv --report import-report.ndjson --resume',
    'cat cards.ndjson | cardctl import --from-file - --format ndjson --concurrency 16',
  ],
  run: notImplemented('import'),
});
