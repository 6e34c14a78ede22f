import { DEFAULT_DIALECT, dialectEntries, readPath, resolveDialect } from '../../api/dialect.js';
import { defineCommand } from '../../contract/command.js';
import type { Column } from '../../output/renderer.js';
import { maskedProfile, requireProfile } from './common.js';

export default defineCommand({
  name: 'show',
  mcp: 'read',
  summary: 'show a profile (secrets masked)',
  description: `Show a profile's settings, secrets masked, and the deployment dialect it speaks: every dialect
setting, those the profile changes followed by the default they replace (-o json: \`dialect\` is the
whole dialect, \`dialectChanged\` the settings that differ from the default).`,
  args: [{ syntax: '[name]', description: 'profile name (default: the selected one)' }],
  examples: ['cardctl profile show', 'cardctl profile show production -o json'],
  async run(ctx, { args }) {
    const name = typeof args[0] === 'string' ? args[0] : ctx.settings().profileName;
    const profile = requireProfile(ctx, name);
    const dialect = resolveDialect(profile.dialect, `profile "${name}" dialect`);
    const entries = dialectEntries(dialect);
    const changed = entries.filter(([key, value]) => readPath(DEFAULT_DIALECT, key) !== value).map(([key]) => key);
    const view = { ...maskedProfile(name, profile, ctx.config.currentProfileName() === name), dialect, dialectChanged: changed };
    const rows: Column[] = Object.keys(view).flatMap((key): Column[] => {
      if (key === 'pinKey') return [{ header: key, path: key, format: (v) => `PEM public key (${String(v).length} bytes; see pinKeyFingerprint)` }];
      if (key === 'dialectChanged') return [];
      if (key === 'dialect') {
        return entries.map(([setting]) => ({
          header: setting,
          path: `dialect.${setting}`,
          format: (v, _r, style) => (changed.includes(setting) ? `${String(v)} ${style.dim(`(default: ${String(readPath(DEFAULT_DIALECT, setting))})`)}` : String(v)),
        }));
      }
      return [{ header: key, path: key }];
    });
    // Its secrets are shown masked (maskedProfile), which the person asked for; an assistant gets none.
    await ctx.output().record(view, { rows, idPath: 'name', carriesSecret: true });
  },
});
