import { defineCommand } from '../contract/command.js';
import { confirmAction } from '../contract/confirm.js';
import { NotFoundError } from '../core/errors.js';

export default defineCommand({
  name: 'logout',
  mcp: 'never',
  summary: "remove the profile's stored credentials",
  description: 'Remove the token and API key of the selected profile (asks first unless --yes).\nThe profile keeps its other settings (base URL, PIN key, switch, output), so `cardctl login` can restore it.',
  examples: ['cardctl logout', 'cardctl logout -p staging --yes'],
  async run(ctx) {
    const { profileName } = ctx.settings();
    const profile = ctx.config.getProfile(profileName);
    if (!profile) {
      throw new NotFoundError(`no profile named "${profileName}"`, { hint: 'see the stored profiles with `cardctl profile list`' });
    }
    if (!profile.token && !profile.apiKey && !profile.tokenExpiresAt) {
      ctx.log.info(`profile "${profileName}" has no stored credentials; nothing to do`);
      return;
    }
    const where = profile.baseUrl ? ` for ${profile.baseUrl}` : '';
    await confirmAction(ctx, `Remove the stored token and API key of profile "${profileName}"${where}?`);
    await ctx.config.update((config) => {
      const next = { ...config.profiles[profileName] };
      delete next.token;
      delete next.apiKey;
      delete next.tokenExpiresAt;
      config.profiles[profileName] = next;
    });
    ctx.output().success(`Logged out of profile "${profileName}" (token and API key removed)`);
    if (ctx.env.CARDCTL_TOKEN || ctx.env.CARDCTL_API_KEY) {
      ctx.log.warn('CARDCTL_TOKEN or CARDCTL_API_KEY is set in the environment and still overrides the profile');
    }
  },
});
