import { defineCommand } from '../../app/command.js';
import type { Column } from '../../output/renderer.js';

const columns: Column[] = [
  { header: 'Name', path: 'name' },
  { header: 'Expansion', path: 'expansion' },
];

export default defineCommand({
  name: 'list',
  mcp: 'never',
  summary: 'list command aliases',
  aliases: ['ls'],
  examples: ['cardctl alias list', 'cardctl alias list -o json'],
  async run(ctx) {
    const aliases = ctx.config.read().aliases ?? {};
    const records = Object.keys(aliases).sort().map((name) => ({ name, expansion: aliases[name]! }));
    await ctx.output().list(records, columns, { idPath: 'name', emptyMessage: "no aliases; add one with `cardctl alias set NAME 'EXPANSION'`" });
  },
});
