import { defineCommand } from '../../contract/command.js';
import { requireProfile } from './common.js';

export default defineCommand({
  name: 'use',
  mcp: 'never',
  summary: 'make a profile the current one',
  args: [{ syntax: '<name>', description: 'profile name' }],
  examples: ['cardctl profile use sandbox'],
  async run(ctx, { args }) {
    const name = String(args[0]);
    requireProfile(ctx, name);
    await ctx.config.update((config) => {
      config.currentProfile = name;
    });
    ctx.output().success(`Now using profile "${name}"`);
    if (ctx.env.CARDCTL_PROFILE && ctx.env.CARDCTL_PROFILE !== name) {
      ctx.log.warn(`CARDCTL_PROFILE=${ctx.env.CARDCTL_PROFILE} is set and still takes precedence in this shell`);
    }
  },
});
