// The disclosure rule, swept over every serialized output path: each output format of the
// renderer (enumerated from OUTPUT_FORMATS, on a terminal and piped, with --jq and --template),
// the audit journal, the --debug log, the exchange log's records, certify's reports and MCP
// results. Each is given card numbers as text, as JSON numbers, in arrays and in headers, two
// signatures of a key rotation in both schemes, and secret-named fields; what comes out holds no
// full card number (the redaction module's own scanner finds none), no secret and no signature.
import { describe, expect, it } from 'vitest';
import { bufferedIO } from '../../src/core/buffered-io.js';
import { OUTPUT_FORMATS } from '../../src/core/output-format.js';
import { REDACTED, maskPansInText, redactValue } from '../../src/core/redact.js';
import { Journal, type JournalEntry } from '../../src/audit/journal.js';
import { ApiClient, type HttpLogger } from '../../src/api/client.js';
import { Renderer, type Column, type OutputSettings } from '../../src/output/renderer.js';
import { createStyle } from '../../src/output/style.js';
import { exchangeRecord } from '../../src/sandbox/switch/exchange-record.js';
import { jsonReport, junitReport, markdownReport } from '../../src/certify/reports.js';
import type { CertifyReport } from '../../src/certify/runner.js';
import { callTool, type CallSettings } from '../../src/mcp/call.js';
import type { CliHost } from '../../src/contract/command.js';
import { commandTools } from '../../src/mcp/tools.js';
import { commandTree } from '../../src/commands/index.js';
import { json, startTestServer } from '../helpers/http-server.js';
import { scratchDir } from '../helpers/dirs.js';

/** Luhn-valid card numbers, each small enough for a double to hold exactly. */
const PAN_TEXT = '5399830000000008';
const PAN_NUMBER = 4111111111111111;
const PAN_IN_ARRAY = 5555555555554444;
const PAN_IN_HEADER = '4000056655665556';
const SIGNATURES = ['aaaa1111bbbb2222', 'cccc3333dddd4444', 'c2lnbmF0dXJlLW9uZQ==', 'c2lnbmF0dXJlLXR3bw=='];
const SECRETS = ['whsec_CURRENTsecretVALUE', 'whsec_PREVIOUSsecretVALUE', 'cs_CLIENTsecretVALUE', 'tok_ACCESStokenVALUE', 'pw_PASSWORDvalue'];

/** A record as a hostile handler or a careless API could make it. */
function hostile(): Record<string, unknown> {
  return {
    id: 'rec_1',
    pan: PAN_NUMBER,
    note: `echoed ${PAN_TEXT} back`,
    reply: {
      status: 200,
      headers: {
        'x-echo-pan': PAN_IN_HEADER,
        'x-webhook-signature': `t=1764400000,v1=${SIGNATURES[0]},v1=${SIGNATURES[1]}`,
        'webhook-signature': `v1,${SIGNATURES[2]} v1,${SIGNATURES[3]}`,
      },
      body: { 0: '0110', 2: PAN_NUMBER, 39: '00', cards: [PAN_IN_ARRAY, { number: PAN_TEXT }] },
    },
    cardProgram: { webHookConfig: { url: 'https://hooks.example.com/in', secret: SECRETS[0], previousSecret: SECRETS[1] } },
    oauth: { clientSecret: SECRETS[2], accessToken: SECRETS[3] },
    password: SECRETS[4],
  };
}

/** Full card numbers in `text`, as the redaction module's own scanner sees them (JSON numbers are digits in text too). */
function fullPans(text: string): string[] {
  return [PAN_TEXT, String(PAN_NUMBER), String(PAN_IN_ARRAY), PAN_IN_HEADER].filter((pan) => text.includes(pan))
    .concat(maskPansInText(text) === text ? [] : ['(a card number maskPansInText would mask)']);
}

function expectDisclosed(text: string, options: { secretsShown?: boolean } = {}): void {
  expect(fullPans(text), text).toEqual([]);
  for (const signature of SIGNATURES) expect(text, text).not.toContain(signature);
  for (const secret of SECRETS) {
    if (options.secretsShown) expect(text).toContain(secret);
    else expect(text, text).not.toContain(secret);
  }
}

const columns: Column[] = [{ header: 'ID', path: 'id' }, { header: 'PAN', path: 'pan' }, { header: 'NOTE', path: 'note' }];

/** Every way the renderer writes: each format, on a terminal and piped, and --jq / --template (which take JSON). */
const RENDER_CASES: Array<{ name: string; settings: Partial<OutputSettings>; tty: boolean }> = [
  ...OUTPUT_FORMATS.flatMap((format) => [true, false].map((tty) => ({ name: `${format}${tty ? ' on a terminal' : ' piped'}`, settings: { format }, tty }))),
  { name: '--jq', settings: { format: 'json', jq: '.' }, tty: false },
  { name: '--jq, ndjson', settings: { format: 'json', jq: '.', compactJq: true }, tty: false },
  { name: '--template', settings: { format: 'json', template: '{{.id}} {{.pan}} {{.note}} {{.reply}} {{.cardProgram}} {{.oauth}} {{.password}}' }, tty: false },
  { name: '--fields', settings: { format: 'json', fields: ['pan', 'reply.body', 'cardProgram.webHookConfig.secret'] }, tty: false },
];

async function render(settings: Partial<OutputSettings>, tty: boolean, what: 'list' | 'record' | 'value'): Promise<string> {
  const io = bufferedIO({ tty });
  const out = new Renderer(io, createStyle(false), { format: 'table', quiet: false, wide: true, ...settings });
  const raw = JSON.stringify({ statusCode: 200, data: [hostile()] });
  if (what === 'list') await out.list([hostile()], columns, { raw });
  else if (what === 'record') await out.record(hostile(), { raw: JSON.stringify({ statusCode: 200, data: hostile() }) });
  else await out.value({ statusCode: 200, data: [hostile()] }, raw);
  return io.stdoutText() + io.stderrText();
}

describe('every output format of the renderer', () => {
  for (const { name, settings, tty } of RENDER_CASES) {
    // --fields names a record's paths, which value() wraps in its envelope.
    for (const what of settings.fields ? ['list', 'record'] as const : ['list', 'record', 'value'] as const) {
      it(`${name}, ${what}: card numbers masked (text, number, array, header), signatures and secrets redacted`, async () => {
        expectDisclosed(await render(settings, tty, what));
      });
    }
  }

  it('a stream of pages (--all) too', async () => {
    for (const format of OUTPUT_FORMATS) {
      const io = bufferedIO({ tty: false });
      const stream = new Renderer(io, createStyle(false), { format, quiet: false, wide: true }).stream(columns);
      await stream.write([hostile()], () => JSON.stringify({ data: [hostile()] }));
      await stream.write([hostile()]);
      await stream.end();
      expectDisclosed(io.stdoutText());
    }
  });

  it('--show-secrets brings the secrets back, never a card number nor a signature', async () => {
    for (const format of OUTPUT_FORMATS) expectDisclosed(await render({ format, showSecrets: true }, false, 'record'), { secretsShown: true });
  });

  it('an output for an assistant (MCP) shows no secret, whatever --show-secrets or the command asks', async () => {
    for (const format of OUTPUT_FORMATS) {
      expectDisclosed(await render({ format, showSecrets: true, neverSecrets: true }, false, 'record'));
      const io = bufferedIO({ tty: false });
      await new Renderer(io, createStyle(false), { format, quiet: false, wide: true, neverSecrets: true }).record(hostile(), { carriesSecret: true });
      expectDisclosed(io.stdoutText());
    }
  });

  it('a secret the command declares it carries is shown to the person', async () => {
    const io = bufferedIO({ tty: false });
    await new Renderer(io, createStyle(false), { format: 'json', quiet: false, wide: false }).record(hostile(), { carriesSecret: true });
    expectDisclosed(io.stdoutText(), { secretsShown: true });
  });
});

describe('the audit journal', () => {
  it('writes no full card number, signature or secret, whatever the entry holds', async () => {
    const dir = scratchDir();
    const journal = new Journal({}, { dir });
    // An entry carrying more than its type names (a body): the journal writes whatever it is given.
    const entry: JournalEntry & { body: Record<string, unknown> } = {
      time: '2026-11-29T07:00:00.000Z', profile: 'sandbox', env: 'sandbox', baseUrl: 'http://127.0.0.1:1', operator: 'tester',
      command: 'cardctl webhook exchanges', method: 'POST', path: '/x', status: 200, message: `echoed ${PAN_TEXT}`, ids: [], durationMs: 1,
      body: hostile(),
    };
    journal.append(entry);
    journal.close();
    const { readFileSync } = await import('node:fs');
    const text = journal.files().map((file) => readFileSync(file, 'utf8')).join('');
    expect(text).toContain(REDACTED);
    expectDisclosed(text);
  });
});

describe('bulk and import reports', () => {
  it('a row\'s message or error disclosed; its identity exact', async () => {
    const { openReport } = await import('../../src/bulk/import-report.js');
    const { readFileSync } = await import('node:fs');
    const path = `${scratchDir()}/report.ndjson`;
    const report = openReport<Record<string, unknown>>(path, false);
    report.write({ row: 1, id: 'card_1', outcome: 'failed', code: 'X', message: `refused ${PAN_TEXT} password=${SECRETS[4]}` });
    report.write({ line: 2, realId: '4111111111111111', outcome: 'invalid', error: `{"pan":${PAN_NUMBER},"token":"${SECRETS[3]}"}` });
    report.close();
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines[1].realId).toBe('4111111111111111');
    delete lines[1].realId;
    expectDisclosed(JSON.stringify(lines));
  });
});

describe('the --debug log', () => {
  it('logs the answer\'s headers and body disclosed', async () => {
    const server = await startTestServer((_req, res) => {
      res.setHeader('x-echo-pan', PAN_IN_HEADER);
      res.setHeader('x-webhook-signature', `t=1,v1=${SIGNATURES[0]},v1=${SIGNATURES[1]}`);
      json(res, 200, { statusCode: 200, data: hostile() });
    });
    try {
      const lines: string[] = [];
      const logger: HttpLogger = { verbose: (line) => void lines.push(line), debug: (line) => void lines.push(line), verboseEnabled: true, debugEnabled: true };
      const client = new ApiClient({ baseUrl: server.url, getToken: async () => SECRETS[3]!, retries: 0, timeoutMs: 5_000, env: {}, logger });
      await client.request({ method: 'POST', path: '/anything', body: hostile() });
      expect(lines.length).toBeGreaterThan(4);
      expectDisclosed(lines.join('\n'));
    } finally {
      await server.close();
    }
  });
});

describe('the exchange log\'s records', () => {
  it('a handler echoing the card number as a JSON number and in a reply header, during a key rotation (both schemes)', () => {
    for (const scheme of ['cardctl', 'standard-webhooks'] as const) {
      const signatureHeaders: Record<string, string> = scheme === 'cardctl'
        ? { 'x-webhook-signature': `t=1764400000,v1=${SIGNATURES[0]},v1=${SIGNATURES[1]}` }
        : { 'webhook-id': 'msg_1', 'webhook-timestamp': '1764400000', 'webhook-signature': `v1,${SIGNATURES[2]} v1,${SIGNATURES[3]}` };
      const record = exchangeRecord({
        subject: { institutionId: 'inst_1', transactionId: 'tx_1', originalId: null, cardId: 'card_1', kind: 'authorization', attempt: 1 },
        config: { url: 'https://hooks.example.com/in', secret: SECRETS[0], previousSecret: SECRETS[1] },
        message: { 0: '0100', 2: PAN_TEXT, 4: '000000001250' },
        wire: {
          request: { method: 'POST', url: 'https://hooks.example.com/in', headers: { 'content-type': 'application/json', ...signatureHeaders }, body: JSON.stringify({ 0: '0100', 2: PAN_TEXT }) },
          response: {
            status: 200,
            headers: { 'content-type': 'application/json', 'x-echo-pan': PAN_IN_HEADER, ...signatureHeaders },
            body: JSON.stringify(hostile().reply && (hostile().reply as { body: unknown }).body).replace('"2":4111111111111111', `"2":${PAN_NUMBER},"secret":"${SECRETS[0]}"`),
            truncated: false,
          },
        },
        outcome: { ok: true, reply: { 0: '0110', 39: '00' }, status: 200 },
        at: new Date('2026-11-29T07:00:00Z'),
        latencyMs: 12,
        faults: [],
      });
      const text = JSON.stringify(record);
      expectDisclosed(text);
      const signature = scheme === 'cardctl' ? record.request.headers['x-webhook-signature'] : record.request.headers['webhook-signature'];
      expect(signature).toBe(scheme === 'cardctl' ? `t=1764400000,v1=${REDACTED},v1=${REDACTED}` : `v1,${REDACTED} v1,${REDACTED}`);
      expect(record.response?.headers['x-echo-pan']).toBe('400005******5556');
    }
  });
});

describe('certify\'s reports', () => {
  it('JSON, JUnit and Markdown: no full card number, signature or secret', () => {
    // Evidence carrying more than its type names (a hostile record): the reports serialize it all.
    const evidence = { request: { mti: '0100', pan: PAN_TEXT }, response: { mti: '0110', code: '00', failure: `reply held ${PAN_NUMBER}` }, extra: hostile() };
    const report: CertifyReport = {
      cardctl: '0.0.0', date: '2026-11-29T07:00:00Z', url: 'https://hooks.example.com/in', scheme: 'cardctl', seed: 1, sandbox: 'in-process',
      summary: { passed: 0, failed: 1, skipped: 0 },
      checks: [{ name: 'approves', proves: 'x', verdict: 'fail', reason: `echoed ${PAN_TEXT}`, durationMs: 1, evidence: [evidence] }],
    };
    for (const text of [jsonReport(report), junitReport(report), markdownReport(report)]) expectDisclosed(text);
  });
});

describe('MCP results', () => {
  const tool = commandTools(commandTree).find((one) => one.name === 'cards_list')!;
  const settings: CallSettings = {
    env: {}, profile: 'sandbox', production: false, allowProductionWrites: false,
    client: () => 'test', askPerson: async () => 'cannot ask', log: () => {},
  };

  it('hold no secret or full card number even when a command prints one by another way than the renderer', async () => {
    for (const printed of [JSON.stringify({ data: [hostile()] }, null, 2), JSON.stringify([hostile()]), `plain text ${PAN_TEXT} password=${SECRETS[4]}`]) {
      const host: Pick<CliHost, 'run'> = { run: async (_argv, { io }) => { io.out(printed); return 0; } };
      const result = await callTool(host, tool, {}, settings, new AbortController().signal);
      expectDisclosed(JSON.stringify(result));
    }
  });

  it('an error\'s output and message too', async () => {
    const host: Pick<CliHost, 'run'> = {
      run: async (_argv, { io }) => {
        io.out(JSON.stringify(hostile()));
        io.err(`${JSON.stringify({ error: { message: `refused ${PAN_TEXT}`, exitCode: 1, details: hostile() } })}\n`);
        return 1;
      },
    };
    expectDisclosed(JSON.stringify(await callTool(host, tool, {}, settings, new AbortController().signal)));
  });

  it('--show-secrets is no tool input', () => {
    for (const one of commandTools(commandTree)) expect(Object.keys(one.inputSchema.properties ?? {})).not.toContain('showSecrets');
  });
});

describe('redactValue', () => {
  it('keeps an own __proto__ a field of the copy, redacted like any other', () => {
    const copy = redactValue(JSON.parse(`{"__proto__":{"secret":"${SECRETS[0]}"}}`)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toEqual({ secret: REDACTED });
  });

  it('masks a number as its digits would be masked as text, and any number under a card-number name', () => {
    expect(redactValue({ n: 1764400000000, luhn: 4111111111111111, big: 12345678901234567890, amount: 1250, x: -4111111111111111 }))
      .toEqual({ n: 1764400000000, luhn: '411111******1111', big: 12345678901234567890, amount: 1250, x: -4111111111111111 });
    expect(redactValue({ pan: 4111111111111112, 2: 123456789012 })).toEqual({ pan: '411111******1112', 2: '********9012' });
  });

  it('is the rule the sweep above holds every path to', () => {
    expectDisclosed(JSON.stringify(redactValue(hostile())));
    expectDisclosed(JSON.stringify(redactValue(hostile(), undefined, { showSecrets: true })), { secretsShown: true });
  });
});

describe('the one terminal escaper', () => {
  it('escapes control, bidi, directional and zero-width characters; joiners only where they join no non-ASCII letters or emoji', async () => {
    const { escapeControls, terminalLine } = await import('../../src/output/format.js');
    const unsafe = ['\x1b', '\x9b', '\u202A', '\u202E', '\u2066', '\u2069', '\u200E', '\u200F', '\u061C', '\u200B', '\uFEFF', '\u2060'];
    for (const char of unsafe) expect(escapeControls(`a${char}b`)).toBe(`a\\${char.codePointAt(0)! <= 0xff ? 'x' : 'u'}${char.codePointAt(0)!.toString(16).padStart(char.codePointAt(0)! <= 0xff ? 2 : 4, '0')}b`);
    expect(escapeControls('ad\u200Dmin')).toBe('ad\\u200dmin');
    expect(escapeControls('\u200Cstart')).toBe('\\u200cstart');
    for (const kept of ['محمد\u200Cرضا', '👩\u200D💻', 'क\u094D\u200Dष']) expect(escapeControls(kept)).toBe(kept);
    expect(terminalLine(`failed: row 1 (card_\u202Ex): card ${PAN_TEXT} password=${SECRETS[4]}`)).toBe(`failed: row 1 (card_\\u202ex): card 539983******0008 password=${REDACTED}`);
  });
});
