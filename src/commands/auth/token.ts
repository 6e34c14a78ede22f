import { defineCommand } from '../../contract/command.js';
import { AuthError } from '../../core/errors.js';

export default defineCommand({
  name: 'token',
  mcp: 'never',
  summary: "print the profile's access token (for other tools)",
  description: "Print the bearer token of the selected profile on stdout, renewing it first when it comes from\nclient credentials. Meant for piping into other tools; it is the only command that prints a secret.",
  examples: ['curl -H "Authorization: Bearer $(cardctl auth token)" "$BASE/institutions/cards"', 'cardctl -p staging auth token | pbcopy'],
  async run(ctx) {
    const { profileName } = ctx.settings();
    const token = await ctx.accessToken();
    if (!token) {
      throw new AuthError(`not logged in: profile "${profileName}" has no token`, { hint: 'run `cardctl login` (or set CARDCTL_TOKEN)' });
    }
    ctx.io.out(`${token}\n`);
  },
});
