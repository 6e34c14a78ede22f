import { defineCommand } from '../../core/command.js';
import type { Column } from '../../output/renderer.js';
import { maskedProfile, requireProfile } from './common.js';

export default defineCommand({
  name: 'show',
  summary: 'show a profile (secrets masked)',
  args: [{ syntax: '[name]', description: 'profile name (default: the selected one)' }],
  examples: ['cardctl profile show', 'cardctl profile show production -o json'],
  async run(ctx, { args }) {
    const name = typeof args[0] === 'string' ? args[0] : ctx.settings().profileName;
    const profile = requireProfile(ctx, name);
    const view = maskedProfile(name, profile, ctx.config.currentProfileName() === name);
    const rows: Column[] = Object.keys(view).map((key) => key === 'pinKey'
      ? { header: key, path: key, format: (v) => `PEM public key (${String(v).length} bytes; see pinKeyFingerprint)` }
      : { header: key, path: key });
    await ctx.output().record(view, { rows, idPath: 'name' });
  },
});
