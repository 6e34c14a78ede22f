import { defineGroup } from '../../contract/command.js';
import remove from './delete.js';
import list from './list.js';
import set from './set.js';

export default defineGroup({
  name: 'alias',
  summary: 'shortcuts for command lines you use often',
  description: `Aliases stand for cardctl command lines: \`cardctl alias set declined 'tx list --status failed --since $1'\`
then \`cardctl declined 24h\`. $1, $2… take arguments; the rest are appended. Stored in the config file.`,
  commands: [set, list, remove],
  examples: ["cardctl alias set declined 'tx list --status failed --since $1'", 'cardctl declined 24h', 'cardctl alias list', 'cardctl alias delete declined'],
});
