import type { Column } from '../../output/renderer.js';
import { listCommand } from '../list-command.js';

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

export default listCommand({
  name: 'list',
  mcp: 'read',
  summary: 'list stored profiles',
  aliases: ['ls'],
  description: 'List the stored profiles; * marks the current one (chosen with `cardctl profile use`).',
  examples: ['cardctl profile list', 'cardctl profile list -o json', 'cardctl profile list -q'],
  flags: {},
  wide: 'the same columns (a profile has no others here; `cardctl profile show` has every setting)',
  idPath: 'name',
  query: () => ({}),
  emptyMessage: () => 'no profiles yet: run `cardctl login`',
  columns: async () => COLUMNS,
  read(ctx) {
    const current = ctx.config.currentProfileName();
    return ctx.config.profileNames().map((name): ProfileRow => {
      const profile = ctx.config.getProfile(name)!;
      return {
        name,
        current: name === current,
        baseUrl: profile.baseUrl ?? null,
        env: profile.env ?? null,
        loggedIn: Boolean(profile.token || profile.apiKey || profile.clientId),
      };
    });
  },
});
