// `oauth …` and `users update`: argv (and the files it names) → the input run() gets, or the usage
// error, before any prompt or request.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import create from '../../../src/commands/oauth/create.js';
import keygen from '../../../src/commands/oauth/keygen.js';
import list from '../../../src/commands/oauth/list.js';
import update from '../../../src/commands/oauth/update.js';
import usersUpdate from '../../../src/commands/users/update.js';
import { testContext } from '../../helpers/context.js';
import { runCommand } from '../../helpers/parse.js';
import { parseTable } from '../../helpers/parse-table.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-parse-oauth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const keys = join(dir, 'keys');
const cert = join(keys, 'certificate.pem');
beforeAll(async () => {
  await runCommand(keygen, testContext({ globals: { quiet: true } }), ['--out', keys, '--subject', 'app']);
});
const file = (name: string, body: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof body === 'string' ? body : JSON.stringify(body));
  return path;
};
const appBody = file('app.json', { name: 'from-file', scopes: ['read:card'], grantType: 'client_credentials' });
const unknownField = file('unknown.json', { nam: 'x' });
const notJson = file('not.json', '{');
const user = file('user.json', { firstName: 'Ada', roles: [{ role: 'ops', permissions: ['read:card'] }] });

parseTable('oauth create', create, {
  good: [
    [['--name', ' app ', '--public-key', cert, '--scope', 'read:card', '--grant-type', 'client_credentials'], { opts: { name: ' app ' }, certificate: expect.stringContaining('BEGIN CERTIFICATE') }],
    [['--from-file', appBody, '--public-key', cert], { file: { name: 'from-file' } }],
    // Missing values are asked for on a terminal, refused by run() otherwise.
    [[], { opts: {}, file: undefined, certificate: undefined }],
    [['--from-file', '-'], { opts: { fromFile: '-' } }],
  ],
  bad: [
    [['--public-key', join(dir, 'none.pem')], /^cannot read --public-key .*none.pem: ENOENT$/],
    [['--public-key', join(keys, 'private-key.pem')], /holds a private key/],
    [['--scope', 'Read:Card'], /--scope/],
    [['--grant-type', 'implicit'], /^invalid --grant-type "implicit"/],
    [['--redirect-uri', 'not a uri'], /--redirect-uri/],
    [['--website-url', 'ftp:x'], /--website-url/],
    [['--from-file', unknownField], /^--from-file: unknown field "nam"$/],
    [['--from-file', notJson], /is not valid JSON/],
  ],
});

parseTable('oauth update', update, {
  good: [
    [['a1', '--scope', 'read:card', 'read:transaction,read:card', '--website-url', 'https://example.com'], { id: 'a1', scopes: ['read:card', 'read:transaction'], websiteUrl: 'https://example.com' }],
    [['a1', '--name', ' n '], { id: 'a1', name: 'n' }],
  ],
  bad: [
    [['a1'], /^nothing to update/],
    [[' ', '--name', 'n'], /^missing the application id/],
    [['a1', '--name', ' '], /^--name is empty$/],
    [['a1', '--scope', ','], /^--scope: give at least one scope$/],
    [['a1', '--website-url', 'nope'], /--website-url/],
  ],
});

parseTable('oauth keygen', keygen, {
  good: [[['--out', join(dir, 'new'), '--subject', ' svc ', '--bits', '3072', '--days', '30'], { bits: 3072, days: 30, subject: 'svc', dir: join(dir, 'new'), force: false }]],
  bad: [
    [['--bits', '1024'], /too small: RSA keys must be 2048 bits or more/],
    [['--bits', '2049'], /give a multiple of 8/],
    [['--days', '0'], /^invalid --days/],
    [['--subject', ' '], /^--subject is empty/],
    [['--out', appBody], /is not a directory$/],
    [['--out', keys], /already exist; refusing to overwrite$/],
  ],
});

parseTable('oauth list', list, {
  good: [[['--search', 'rec', '--all'], { query: { search: 'rec' }, all: true }]],
  bad: [[['--all', '--page', '2'], /^--all and --page/]],
});

parseTable('users update', usersUpdate, {
  good: [
    [['u1', '--email', 'ada@example.com', '--role', 'admin=create:card'], { userId: 'u1', opts: { email: 'ada@example.com' } }],
    [['u1', '--from-file', user], { userId: 'u1', file: { firstName: 'Ada' } }],
    // Missing values are asked for on a terminal, refused by run() otherwise.
    [['u1'], { userId: 'u1' }],
  ],
  bad: [
    [[' '], /^missing the user id/],
    [['u1', '--email', 'nope'], /^invalid --email/],
    [['u1', '--role', '=read:card'], /^invalid --role "=read:card"/],
    [['u1', '--role', 'admin=Read-Card'], /permission/],
    [['u1', '--start-date', '2026-02-30'], /--start-date/],
    [['u1', '--start-date', '2027-01-01', '--expiry-date', '2026-01-01'], /--expiry-date/],
    [['u1', '--from-file', unknownField], /^--from-file: unknown field "nam"$/],
  ],
});
