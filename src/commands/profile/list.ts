import { defineCommand } from '../../app/command.js';
import type { Column } from '../../output/renderer.js';

interface ProfileRow {
  name: string;
  current: boolean;
  baseUrl: string | null;
  env: string | null;
  loggedIn: boolean;
}

const COLUMNS: Column<ProfileRow>[] = [
  { header: '', path: 'current', format: (v, _r, st) => (v ? st.ok('*') : ''), csv: (v) => String(Boolean(v)) },
  { header: 'NAME', path: 'name' },
  { header: 'BASE URL', path: 'baseUrl' },
  { header: 'ENV', path: 'env' },
  { header: 'CREDENTIALS', path: 'loggedIn', format: (v, _r, st) => (v ? 'yes' : st.dim('none')) },
];

export default defineCommand({
  name: 'list',
  mcp: 'read',
  summary: 'list stored profiles',
  aliases: ['ls'],
  description: 'List the stored profiles; * marks the current one (chosen with `cardctl profile use`).',
  examples: ['cardctl profile list', 'cardctl profile list -o json', 'cardctl profile list -q'],
  async run(ctx) {
    const current = ctx.config.currentProfileName();
    const rows: ProfileRow[] = ctx.config.profileNames().map((name) => {
      const profile = ctx.config.getProfile(name)!;
      return {
        name,
        current: name === current,
        baseUrl: profile.baseUrl ?? null,
        env: profile.env ?? null,
        loggedIn: Boolean(profile.token || profile.apiKey || profile.clientId),
      };
    });
    await ctx.output().list(rows, COLUMNS, { idPath: 'name', emptyMessage: 'no profiles yet: run `cardctl login`' });
  },
});
