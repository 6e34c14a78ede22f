// The top-level commands (api, login, logout, auth, import, sandbox serve, webhook listen, doctor,
// demo, completion, mcp): argv (and the files it names) → the input run() gets, or the usage error,
// before any network I/O.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import api from '../../../src/commands/api.js';
import status from '../../../src/commands/auth/status.js';
import token from '../../../src/commands/auth/token.js';
import completion from '../../../src/commands/completion.js';
import demo from '../../../src/commands/demo.js';
import doctor from '../../../src/commands/doctor.js';
import importCommand from '../../../src/commands/import.js';
import login from '../../../src/commands/login.js';
import logout from '../../../src/commands/logout.js';
import mcp from '../../../src/commands/mcp.js';
import serve from '../../../src/commands/sandbox/serve.js';
import listen from '../../../src/commands/webhook/listen.js';
import { parseTable } from '../../helpers/parse-table.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-parse-commands-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const body = file('body.json', '{"expiration":"202912"}');
const notJson = file('bad.json', '{');
const pinKey = file('pin.pem', String(generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ type: 'spki', format: 'pem' })));
const rules = file('rules.yaml', 'default: "00"\nrules:\n  - match: { panSuffix: "0008" }\n    respond: "05"\n');
const badRules = file('bad-rules.yaml', 'rules: 3\n');
const dialect = file('dialect.yaml', 'maxPageSize: 50\n');

parseTable('api', api, {
  good: [
    [['get', 'institutions/cards?limit=5'], { method: 'GET', path: '/institutions/cards?limit=5', body: undefined, auth: 'bearer', bodyFromStdin: false }],
    [['PUT', '/x', '--data', '{"a":1}', '-H', 'X-Request-Id: 42'], { method: 'PUT', body: { a: 1 }, headers: { 'x-request-id': '42' } }],
    [['POST', '/util/cards/import', '--api-key', '--data', `@${body}`], { auth: 'apiKey', body: { expiration: '202912' } }],
    // Read from stdin by run().
    [['POST', '/x', '--data', '-'], { body: undefined, bodyFromStdin: true }],
  ],
  bad: [
    [['FETCH', '/x'], /^unknown method "FETCH"$/],
    [['GET', 'https://api.example.com/x'], /^give a path relative to the base URL, not a full URL/],
    [['GET', ' '], /^missing <path>$/],
    [['GET', '/x', '--data', '{}'], /^--data cannot be sent with GET$/],
    [['POST', '/x', '--data', '{'], /^--data is not valid JSON/],
    [['POST', '/x', '--data', `@${join(dir, 'none.json')}`], /^--data @.*none.json: cannot read the file \(ENOENT\)$/],
    [['GET', '/x', '-H', 'Authorization: Bearer x'], /^-H Authorization is not allowed$/],
    [['GET', '/x', '-H', 'bad header'], /^invalid -H "bad header"/],
    [['GET', '/x', '-H', 'X-A: é'], /a non-ASCII character/],
  ],
});

parseTable('login', login, {
  good: [
    [['--base-url', 'https://api.example.com/', '--token-stdin', '--env', 'production'], { baseUrl: 'https://api.example.com', opts: { tokenStdin: true, env: 'production' } }],
    [['--base-url', 'https://api.example.com', '--client-id', 'app', '--private-key', 'key.pem'], { clientCredentials: { clientId: 'app', privateKeyPath: 'key.pem' } }],
    [['--switch', 'acme', '--pin-key', pinKey], { switchName: 'acme', pinKey: { pem: expect.stringContaining('PUBLIC KEY'), fingerprint: expect.any(String) } }, { tty: true }],
    // The base URL and the token are asked for on a terminal; a base URL may come from the stored profile (run()).
    [[], { baseUrl: undefined }, { tty: true }],
    [['--api-key-stdin'], { opts: { apiKeyStdin: true } }],
  ],
  bad: [
    [['--profile', 'a b'], /^invalid profile name "a b"/],
    [['--switch', 'a/b'], /^invalid --switch "a\/b"/],
    [['--client-id', 'app'], /^--client-id needs --private-key/],
    [['--private-key', 'k.pem'], /^--private-key needs --client-id$/],
    [['--client-id', 'a', '--private-key', 'k', '--token-stdin'], /^--token-stdin cannot be combined with --client-id/],
    [['--token-url', 'https://x.example.com/token'], /^--token-url is only for client-credentials login/],
    [['--base-url', 'http://api.example.com'], /^refusing plain http:\/\/ to api.example.com/],
    [['--pin-key', join(dir, 'none.pem')], /none.pem/],
    // No token from stdin, and no terminal to ask on.
    [[], /^missing --token-stdin: no token to store$/],
    [['--base-url', 'https://api.example.com', '--no-input'], /^missing --token-stdin/, { tty: true }],
  ],
});

parseTable('logout', logout, { good: [[[], { args: [] }]] });
parseTable('auth status', status, { good: [[[], { args: [] }]] });
parseTable('auth token', token, { good: [[[], { args: [] }]] });
parseTable('doctor', doctor, { good: [[[], { args: [] }], [['--deployment'], { opts: { deployment: true } }]] });
parseTable('demo', demo, { good: [[[], { args: [] }]] });
parseTable('completion', completion, {
  good: [[['bash'], { shell: 'bash' }], [['fish'], { shell: 'fish' }]],
  bad: [[['tcsh'], /^unknown shell "tcsh"$/]],
});

// Every field of one card (the institution id may come from the profile).
const ONE_CARD = ['--real-id', 'LEGACY-1', '--first-name', 'Ada', '--last-name', 'Obi', '--email', 'ada@example.com', '--phone', '+2348012345678', '--birth-date', '1990-01-31', '--address-line1', '1 Marina', '--city', 'Lagos', '--state', 'Lagos', '--postal-code', '100001', '--country', 'NG', '--start-date', '2024-01-01', '--end-date', '2028-12-31', '--expiration', '202812', '--service-code', '101', '--card-product', 'classic', '--embossing-name', 'ADA OBI', '--bin', '506099', '--status', 'active'];

parseTable('import', importCommand, {
  now: new Date('2026-11-22T12:00:00Z'),
  good: [
    [['--from-file', 'cards.csv', '--report', 'r.ndjson', '--concurrency', '16'], { format: 'csv', opts: { report: 'r.ndjson' } }],
    [['--from-file', '-', '--format', 'ndjson'], { format: 'ndjson' }],
    [['--from-file', 'cards.txt', '--format', 'json', '--institution-id', 'INST'], { format: 'json' }],
    // One card: missing fields and the PIN are asked for on a terminal, a usage error without one.
    [['--real-id', 'LEGACY-1', '--pin-stdin'], { opts: { realId: 'LEGACY-1', pinStdin: true } }, { tty: true }],
    [['--first-name', 'Ada', '--bin', '506099', '--expiration', '203012', '--birth-date', '1990-01-31'], { opts: { firstName: 'Ada', bin: '506099' } }, { tty: true }],
    [[...ONE_CARD, '--pin-stdin'], { opts: { realId: 'LEGACY-1', pinStdin: true } }],
  ],
  bad: [
    [['--from-file', 'cards.csv', '--first-name', 'Ada', '--pin-stdin'], /^--first-name, --pin-stdin describe one card and cannot be combined with --from-file$/],
    [['--from-file', 'cards.csv', '--no-active'], /^--no-active describe one card/],
    [['--report', 'r.ndjson'], /^--resume, --report, --format and --encoding need --from-file$/],
    [['--from-file', '-'], /^--from-file - needs --format csv\|ndjson\|json$/],
    [['--from-file', 'cards.txt'], /^cannot tell the format of cards.txt from its extension$/],
    [['--from-file', 'cards.csv', '--concurrency', '0'], /^invalid --concurrency "0"/],
    // One card: each field given is checked by the validators of file rows, named by its flag.
    [['--bin', '12'], /^invalid card: --bin/],
    [['--birth-date', '1990-02-30', '--email', 'ada@example.com'], /^invalid card: --birth-date/],
    [['--expiration', '202001'], /^invalid card: --expiration/],
    [['--real-id', 'LEGACY-1', '--pin-stdin'], /^missing --first-name, .*--last-name.* \(one card's fields; or import a file with --from-file\)$/],
    [[...ONE_CARD], /^the card's default PIN is needed: pipe it with --pin-stdin/],
    [[...ONE_CARD, '--no-input'], /default PIN is needed/, { tty: true }],
  ],
});

parseTable('sandbox serve', serve, {
  good: [
    [[], { port: 4010, host: '127.0.0.1', memory: false, dbFile: undefined, dbFromFlag: false, tokenTtlSeconds: 3600, log: true }],
    [['--port', '0', '--memory', '--quiet-log', '--token-ttl', '60'], { port: 0, memory: true, log: false, tokenTtlSeconds: 60 }],
    [['--faults', 'rate=0.1,codes=500|503', '--faults-seed', '42', '--webhook-faults', 'delay=100-300ms', '--webhook-faults-seed', '7'], { faultsText: 'rate=0.1,codes=500|503', faultsSeed: 42, webhookFaultsSeed: 7, faults: expect.any(Object), webhookFaults: expect.any(Object) }],
    [['--dialect', dialect, '--db', 'x.db', '--webhook-url', 'http://127.0.0.1:4020/webhook'], { dialect: { maxPageSize: 50 }, dbFile: 'x.db', dbFromFlag: true }],
    // Read from stdin by run().
    [['--dialect', '-'], { dialectFile: '-', dialect: undefined }],
  ],
  bad: [
    [['--port', '70000'], /^invalid --port "70000"/],
    [['--memory', '--db', 'x.db'], /^--db and --memory cannot be used together$/],
    [['--db', ' '], /^--db must not be empty$/],
    [['--host', ' '], /^--host must not be empty$/],
    [['--token-ttl', '0'], /^invalid --token-ttl "0"/],
    [['--webhook-url', 'ftp://x'], /^invalid --webhook-url "ftp:\/\/x"/],
    [['--faults', 'rate=2'], /^invalid --faults: /],
    [['--faults-hold', 'soon'], /^invalid --faults-hold: /],
    [['--faults-seed', '-1'], /^invalid --faults-seed "-1"/],
    [['--webhook-faults', 'nonsense'], /^invalid --webhook-faults: /],
    [['--dialect', join(dir, 'none.yaml')], /^cannot read dialect file/],
  ],
});

parseTable('webhook listen', listen, {
  good: [
    [[], { port: 4020, respond: '00', forwardTo: undefined, rules: undefined }],
    [['--port', '0', '--respond', '10', '--approved-amount', '600.00', '--delay', '6000', '--fail-every', '3'], { port: 0, respond: '10', approvedAmount: 600, delay: 6000, failEvery: 3 }],
    [['--forward-to', 'http://localhost:8080/card-auth'], { forwardTo: 'http://localhost:8080/card-auth' }],
    [['--forward-to', 'https://[::1]:8443/card-auth'], { forwardTo: 'https://[::1]:8443/card-auth' }],
    [['--rules', rules], { rules: { default: '00', rules: [expect.objectContaining({ respond: '05' })] } }],
  ],
  bad: [
    [['--port', 'x'], /^invalid --port "x"/],
    [['--respond', '123'], /^invalid --respond "123"/],
    [['--forward-to', 'ftp://x'], /^invalid --forward-to "ftp:\/\/x"/],
    // The relay hands on the clear message and its signature headers: to this machine only, never by a string prefix.
    [['--forward-to', 'http://127.0.0.1.attacker.example:8080/card-auth'], /^invalid --forward-to ".*": 127\.0\.0\.1\.attacker\.example is not this machine.*the handler must be on this machine/],
    [['--forward-to', 'http://127.0.0.1@evil.example/'], /^invalid --forward-to ".*": it carries a user name or password/],
    [['--forward-to', 'http://evil.example#@127.0.0.1/'], /^invalid --forward-to ".*": evil\.example is not this machine/],
    [['--forward-to', 'http://x', '--rules', rules], /^--forward-to and --rules cannot be used together/],
    [['--forward-to', 'http://x', '--delay', '5'], /^--forward-to and --delay cannot be used together/],
    [['--approved-amount', '600'], /^--approved-amount goes with --respond 10/],
    [['--respond', '10', '--approved-amount', '0'], /^invalid --approved-amount "0"/],
    [['--delay', '200000'], /^invalid --delay "200000"/],
    [['--rules', join(dir, 'none.yaml')], /^cannot read rules file/],
    [['--rules', badRules], /rules/],
  ],
});

parseTable('mcp', mcp, {
  good: [[[], { writeGroups: new Set(), allowProductionWrites: false }], [['--allow-write', 'cards', '--allow-production-writes'], { writeGroups: new Set(['cards']), allowProductionWrites: true }]],
  bad: [[['--allow-write', 'tx'], /^--allow-write: no command group "tx"/], [['--allow-production-writes'], /^--allow-production-writes needs --allow-write GROUP/]],
});
