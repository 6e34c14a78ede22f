// Every command has a parse table here (but `cards create`, which has its own tests): a new
// command without one fails this test.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { type AnyCommand, type GroupDefinition, isGroup } from '../../../src/contract/command.js';
import { commandTree } from '../../../src/commands/index.js';

function leaves(nodes: Array<AnyCommand | GroupDefinition>, prefix = ''): string[] {
  return nodes.flatMap((node) => (isGroup(node) ? leaves(node.commands, `${prefix}${node.name} `) : [`${prefix}${node.name}`]));
}

it('every command has a parse table', () => {
  const dir = import.meta.dirname;
  const tables = readdirSync(dir).filter((name) => name.endsWith('.test.ts')).map((name) => readFileSync(join(dir, name), 'utf8')).join('\n');
  const missing = leaves(commandTree).filter((name) => name !== 'cards create' && !tables.includes(`parseTable('${name}'`));
  expect(leaves(commandTree).length).toBeGreaterThan(50);
  expect(missing).toEqual([]);
});
