// `profile …` and `alias …`: argv → the input each verb's run() gets, or the usage error, before the
// config is read or written.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import aliasDelete from '../../../src/commands/alias/delete.js';
import aliasList from '../../../src/commands/alias/list.js';
import aliasSet from '../../../src/commands/alias/set.js';
import profileList from '../../../src/commands/profile/list.js';
import remove from '../../../src/commands/profile/remove.js';
import setDialect from '../../../src/commands/profile/set-dialect.js';
import set from '../../../src/commands/profile/set.js';
import show from '../../../src/commands/profile/show.js';
import use from '../../../src/commands/profile/use.js';
import { parseTable } from '../../helpers/parse-table.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-parse-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const dialectFile = join(dir, 'dialect.yaml');
writeFileSync(dialectFile, 'maxPageSize: 50\n');
const badDialect = join(dir, 'bad.yaml');
writeFileSync(badDialect, 'maxPageSize: lots\n');
const keyFile = join(dir, 'private-key.pem');
writeFileSync(keyFile, 'key');

parseTable('profile set', set, {
  good: [
    [['output', 'json'], { key: 'output', value: 'json' }],
    [['output', ''], { key: 'output', value: undefined }],
    [['switch', 'acme'], { key: 'switch', value: 'acme' }],
    [['baseUrl', 'https://api.example.com/'], { key: 'baseUrl', value: 'https://api.example.com' }],
    [['privateKeyPath', keyFile], { key: 'privateKeyPath', value: keyFile }],
    [['params.cards.limit', ' pageSize '], { dialectKey: 'params.cards.limit', value: 'pageSize' }],
    [['paging.style', ''], { dialectKey: 'paging.style', value: undefined }],
  ],
  bad: [
    [['token', 'x'], /^unknown setting "token"$/],
    [['toString', 'x'], /^unknown setting "toString"$/],
    [['output', 'yaml'], /^invalid value "yaml" for output: expected one of/],
    [['switch', 'a/b'], /^invalid value "a\/b" for switch: expected one URL path segment$/],
    [['privateKeyPath', join(dir, 'none.pem')], /^invalid value for privateKeyPath: .* does not exist$/],
  ],
});

parseTable('profile set-dialect', setDialect, {
  good: [[[dialectFile], { file: dialectFile, dialect: { maxPageSize: 50 } }], [['-'], { file: '-' }]],
  bad: [[[join(dir, 'none.yaml')], /^cannot read dialect file .*none.yaml: ENOENT$/], [[badDialect], /maxPageSize/]],
});

// No checks beyond commander's: the profile is looked up in the config by run().
parseTable('profile use', use, { good: [[['sandbox'], { args: ['sandbox'] }]], bad: [[[], /missing required argument 'name'/]] });
parseTable('profile remove', remove, { good: [[['staging', '--yes'], { args: ['staging'], opts: { yes: true } }]], bad: [[[], /missing required argument 'name'/]] });
parseTable('profile show', show, { good: [[[], { args: [undefined] }], [['prod'], { args: ['prod'] }]] });
parseTable('profile list', profileList, { good: [[[], { all: true, wide: false }], [['--limit', '2'], { limit: 2 }]], bad: [[['--limit', 'x'], /^invalid --limit "x"/]] });

parseTable('alias set', aliasSet, {
  good: [
    [['declined', 'tx list --status failed --since $1'], { name: 'declined', expansion: 'tx list --status failed --since $1' }],
    [['card', 'cardctl cards get $1 -o json'], { name: 'card', expansion: 'cards get $1 -o json' }],
  ],
  bad: [
    [['9x', 'cards list'], /^invalid alias name "9x"/],
    [['cards', 'cards list'], /^"cards" is a built-in command; an alias may not shadow it$/],
    [['x', ' '], /^the expansion is empty$/],
    [['x', 'ls -l'], /^the expansion must start with a cardctl command, not "ls"$/],
  ],
});
parseTable('alias delete', aliasDelete, { good: [[[' declined '], { name: 'declined' }]] });
parseTable('alias list', aliasList, { good: [[[], { query: {}, all: true }], [['--limit', '3', '--wide'], { limit: 3, wide: true }]], bad: [[['--limit', '0'], /^invalid --limit "0"/]] });
