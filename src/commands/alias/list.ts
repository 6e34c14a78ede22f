import type { Column } from '../../output/renderer.js';
import { listCommand } from '../list-command.js';

interface AliasRow {
  name: string;
  expansion: string;
}

const columns: Column<AliasRow>[] = [
  { header: 'Name', path: 'name' },
  { header: 'Expansion', path: 'expansion' },
];

export default listCommand({
  name: 'list',
  mcp: 'never',
  summary: 'list command aliases',
  aliases: ['ls'],
  examples: ['cardctl alias list', 'cardctl alias list -o json'],
  flags: {},
  wide: 'the same columns (an alias has no others)',
  idPath: 'name',
  query: () => ({}),
  emptyMessage: () => "no aliases; add one with `cardctl alias set NAME 'EXPANSION'`",
  columns: async () => columns,
  read(ctx) {
    const aliases = ctx.config.read().aliases ?? {};
    return Object.keys(aliases).sort().map((name) => ({ name, expansion: aliases[name]! }));
  },
});
