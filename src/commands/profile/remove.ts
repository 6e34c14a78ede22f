import { defineCommand } from '../../contract/command.js';
import { confirmAction } from '../../contract/confirm.js';
import { requireProfile } from './common.js';

export default defineCommand({
  name: 'remove',
  mcp: 'never',
  summary: 'delete a stored profile',
  aliases: ['rm'],
  description: 'Delete a stored profile with its credentials (asks first unless --yes).',
  args: [{ syntax: '<name>', description: 'profile name' }],
  examples: ['cardctl profile remove staging', 'cardctl profile remove staging --yes'],
  async run(ctx, { args }) {
    const name = String(args[0]);
    const profile = requireProfile(ctx, name);
    const where = profile.baseUrl ? ` (${profile.baseUrl})` : '';
    await confirmAction(ctx, `Delete profile "${name}"${where} and its stored credentials?`);
    const wasCurrent = ctx.config.read().currentProfile === name;
    await ctx.config.removeProfile(name);
    ctx.output().success(`Removed profile "${name}"`);
    if (wasCurrent) ctx.log.info('it was the current profile; pick another with `cardctl profile use NAME`');
  },
});
