import { defineCommand } from '../../contract/command.js';
import { UsageError } from '../../core/errors.js';

export default defineCommand({
  name: 'set',
  mcp: 'never',
  summary: 'create or replace a command alias',
  description: `Makes NAME stand for a cardctl command line. $1, $2… in the expansion take the arguments given
after the alias; arguments no $N takes are appended. An alias may not shadow a built-in command, and its
expansion must start with one. Quote the expansion so the shell passes it as one argument.`,
  args: [
    { syntax: '<name>', description: 'the alias' },
    { syntax: '<expansion>', description: 'the command line it stands for, without "cardctl"' },
  ],
  examples: [
    "cardctl alias set declined 'tx list --status failed --since 24h'",
    "cardctl alias set card 'cards get $1 -o json'",
    'cardctl card 665f1c2e',
  ],
  // cli.builtinNames() reads the command tree, not the config: a check of the command line alone.
  async parse({ args, cli }) {
    const [{ ALIAS_NAME }, { splitCommand }] = await Promise.all([
      import('../../aliases/expand.js'),
      import('../../output/pager.js'),
    ]);
    const name = String(args[0] ?? '').trim();
    const expansion = String(args[1] ?? '').trim().replace(/^cardctl\s+/, '');
    if (!ALIAS_NAME.test(name)) {
      throw new UsageError(`invalid alias name "${name}": use letters, digits, - and _, starting with a letter`);
    }
    const builtins = await cli.builtinNames();
    if (builtins.has(name)) {
      throw new UsageError(`"${name}" is a built-in command; an alias may not shadow it`, { hint: 'choose another name' });
    }
    const first = splitCommand(expansion)[0];
    if (!first) throw new UsageError('the expansion is empty', { hint: "e.g. cardctl alias set declined 'tx list --status failed'" });
    if (!builtins.has(first)) {
      throw new UsageError(`the expansion must start with a cardctl command, not "${first}"`, { hint: "e.g. 'cards list --search $1'" });
    }
    return { name, expansion };
  },
  async run(ctx, { name, expansion }) {
    let replaced: string | undefined;
    await ctx.config.update((config) => {
      replaced = config.aliases?.[name];
      config.aliases = { ...config.aliases, [name]: expansion };
    });
    ctx.output().success(replaced === undefined ? `Added alias ${name} → cardctl ${expansion}` : `Changed alias ${name} → cardctl ${expansion} (was: ${replaced})`);
  },
});
