// `webhook certify`'s parse step: the command line → the typed input its run() gets, or the
// usage error (exit 2) before anything starts.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHECK_NAMES } from '../../../src/certify/checks.js';
import certify from '../../../src/commands/webhook/certify.js';
import { parseCommand } from '../../helpers/parse.js';
import { parseTable } from '../../helpers/parse-table.js';
import { tempDir } from '../../helpers/cli.js';

const URL_FLAG = ['--url', 'http://127.0.0.1:8080/card-auth'];

describe('webhook certify: parse', () => {
  it('defaults: every check, cardctl scheme, 5/s for 3 s, seed 1, no reports', async () => {
    expect(await parseCommand(certify, URL_FLAG)).toMatchObject({
      url: 'http://127.0.0.1:8080/card-auth', secretStdin: false, scheme: 'cardctl', checks: CHECK_NAMES,
      expect: {}, latency: { perSecond: 5, durationMs: 3000 }, seed: 1, outputs: {},
    });
  });
});

parseTable('webhook certify', certify, {
  good: ([
    [['--only', 'latency,refund', '--rate', '10/s', '--duration', '500ms', '--seed', '42'], { checks: ['latency', 'refund'], latency: { perSecond: 10, durationMs: 500 }, seed: 42 }],
    [['--skip', 'latency', '--scheme', 'standard-webhooks', '--secret-stdin'], { checks: CHECK_NAMES.filter((n) => n !== 'latency'), scheme: 'standard-webhooks', secretStdin: true }],
    [['--report', 'r.json', '--junit', 'r.xml', '--markdown', 'r.md'], { outputs: { report: 'r.json', junit: 'r.xml', markdown: 'r.md' } }],
  ] satisfies Array<[string[], object]>).map(([argv, input]): [string[], object] => [[...URL_FLAG, ...argv], input]),
  bad: [
    [[], /--url is required/],
    [['--url', 'ftp://x/y'], /invalid --url/],
    [[...URL_FLAG, '--only', 'latency,nope'], /unknown check "nope"; the checks are: authorization-reply/],
    [[...URL_FLAG, '--skip', ''], /--skip needs check names/],
    [[...URL_FLAG, '--rate', '0'], /invalid --rate/],
    [[...URL_FLAG, '--rate', '1000/s'], /invalid --rate/],
    [[...URL_FLAG, '--duration', '2m'], /invalid --duration/],
    [[...URL_FLAG, '--seed', '-1'], /invalid --seed|option/],
    [[...URL_FLAG, '--scheme', 'hmac'], /scheme|Allowed choices/],
    [[...URL_FLAG, '--rules', '/nonexistent/rules.yaml'], /cannot read rules file/],
  ],
});

describe('webhook certify: the rules file', () => {
  it('reads the rules file', async () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, 'rules.yaml');
      writeFileSync(file, 'expect:\n  authorization-reply: ["00", "05"]\n');
      expect(await parseCommand(certify, [...URL_FLAG, '--rules', file])).toMatchObject({ expect: { 'authorization-reply': ['00', '05'] } });
    } finally {
      dir.remove();
    }
  });
});
