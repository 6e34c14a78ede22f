// The egress rule at every call site: each place in src/ that opens an HTTP request is listed
// here with where it sends, and the ones that send to a URL a user names on this machine only
// (a replay's `to`, `webhook listen --forward-to`) go through connectToLoopback, which checks
// the address and connects by it. A new call site fails the first test until it is placed. And
// no second copy of the loopback predicate: "this machine" is decided in src/core/loopback.ts only.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NotLoopbackError } from '../../src/core/loopback.js';
import { startListener } from '../../src/listener/server.js';

function sources(dir = 'src'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** Where an HTTP request leaves cardctl: undici's request/fetch/stream, a dispatcher's dispatch, global fetch, node:http(s).request/get. */
const OUTBOUND = /\b(?:request|fetch|stream)\(\s*(?!['"`]\/)|\.dispatch\(|\bhttps?\.(?:request|get)\(/;

/** Every file that opens HTTP requests, and where they go. */
const CALL_SITES: Record<string, string> = {
  'src/api/node-http.ts': "the API client's transport: the profile's base URL (plain http only to loopback: parseBaseUrl)",
  'src/api/undici.ts': "the API client's transport behind a proxy or a test dispatcher: the profile's base URL",
  'src/commands/doctor.ts': "GET /sandbox/health of the profile's base URL, through the client's dispatcher",
  'src/commands/simulate/scenario-sandbox.ts': "GET <webhook>/exchanges of the program's own webhook URL: a read, no message, no secret",
  'src/sandbox/switch/webhook.ts': "the switch's call: the program's webhook URL, or for a replay elsewhere the dispatcher replay.ts got from connectToLoopback",
  'src/listener/relay.ts': 'the --forward-to relay: every relay through the dispatcher server.ts got from connectToLoopback at start',
};

/** The senders to a URL a user names that must be on this machine, and the dispatcher they connect by. */
const LOOPBACK_SENDERS = ['src/sandbox/switch/replay.ts', 'src/listener/server.ts'];

describe('egress call sites', () => {
  const files = sources();
  const code = (file: string) => readFileSync(file, 'utf8').replace(/^\s*(\/\/|\*|\/\*).*$/gm, '');

  it('every file that opens an HTTP request is a known call site', () => {
    const found = files.filter((file) => code(file).split('\n').some((line) => OUTBOUND.test(line) && !/client\.request|\.request<|this\.client\.request|output\.stream|this\.stream|\.stream\(columns/.test(line)));
    expect(found.sort()).toEqual(Object.keys(CALL_SITES).sort());
  });

  it('the loopback-only senders check the address and connect by it', () => {
    for (const file of LOOPBACK_SENDERS) {
      const text = code(file);
      expect(text, file).toMatch(/connectToLoopback\(/);
      expect(text, file).toMatch(/dispatcher/);
    }
    // The listener's relay sends only through the dispatcher its server checked.
    expect(code('src/listener/relay.ts')).toMatch(/request\(url, \{[^}]*\bdispatcher\b/);
    // The one function they call is the rule's: resolve once, check every address, connect by it.
    const undici = code('src/api/undici.ts');
    expect(undici).toMatch(/loopbackTarget\(url, resolve\)[\s\S]*connect: \{ lookup: pinnedLookup\(target\) \}/);
  });

  it('"this machine" is decided in src/core/loopback.ts only: no prefix test or regex of its own anywhere else', () => {
    const copies = files.filter((file) => file !== 'src/core/loopback.ts').flatMap((file) => code(file).split('\n')
      .filter((line) => /startsWith\(['"](127\.|::ffff)|\/\^\(?127|127\(\?:|[=!]== ?'(::1|localhost|127\.0\.0\.1)'|'(::1|localhost|127\.0\.0\.1)' ?[=!]==/.test(line))
      .map((line) => `${file}: ${line.trim()}`));
    expect(copies).toEqual([]);
  });
});

describe('webhook listen --forward-to', () => {
  it('refuses, before listening, a handler whose name only looks local', async () => {
    for (const forwardTo of ['http://127.0.0.1.attacker.example:8080/', 'http://localhost.attacker.example/', 'http://0.0.0.0:8080/']) {
      await expect(startListener({ port: 0, host: '127.0.0.1', respond: '00', forwardTo, onExchange: () => undefined }), forwardTo).rejects.toBeInstanceOf(NotLoopbackError);
    }
  });
});
