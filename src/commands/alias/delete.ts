import { defineCommand } from '../../contract/command.js';
import { NotFoundError } from '../../core/errors.js';

export default defineCommand({
  name: 'delete',
  mcp: 'never',
  summary: 'delete a command alias',
  aliases: ['rm', 'remove'],
  args: [{ syntax: '<name>', description: 'the alias' }],
  examples: ['cardctl alias delete declined'],
  parse: ({ args }) => ({ name: String(args[0] ?? '').trim() }),
  async run(ctx, { name }) {
    if (!Object.hasOwn(ctx.config.read().aliases ?? {}, name)) {
      throw new NotFoundError(`no alias named "${name}"`, { hint: 'see `cardctl alias list`' });
    }
    await ctx.config.update((config) => {
      const next = { ...config.aliases };
      delete next[name];
      config.aliases = next;
    });
    ctx.output().success(`Deleted alias ${name}`);
  },
});
