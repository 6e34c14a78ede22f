import { defineCommand } from '../../contract/command.js';
import type { Profile } from '../../config/store.js';

export default defineCommand({
  name: 'set-dialect',
  mcp: 'never',
  summary: "set the profile's deployment dialect from a JSON or YAML file",
  description: `Replace the deployment dialect of the selected profile (created when it does not exist yet)
with the one a JSON or YAML file describes ("-" reads stdin): the names of the list query
parameters, the paging style, the largest page size and the places of an error's message, code and
field errors. Settings the file leaves out take their default; an empty file sets every one back.
The same file starts a sandbox speaking that dialect (\`cardctl sandbox serve --dialect FILE\`).
\`cardctl profile show\` lists the result; \`cardctl profile set KEY VALUE\` changes one setting.`,
  args: [{ syntax: '<file>', description: 'dialect file, JSON or YAML ("-" = stdin)' }],
  examples: ['cardctl profile set-dialect examples/dialect.yaml', 'cardctl -p legacy profile set-dialect - < dialect.json'],
  async parse({ args }) {
    const file = String(args[0]);
    // A file is read and checked here; stdin (-) by run().
    return { file, dialect: file === '-' ? undefined : await (await import('../dialect-file.js')).dialectFromFile(file) };
  },
  async run(ctx, { file, ...parsed }) {
    const dialect = parsed.dialect ?? await (await import('../dialect-file.js')).readDialectFile(ctx, file);
    const { profileName } = ctx.settings();
    await ctx.config.update((config) => {
      const profile: Profile = { ...(config.profiles[profileName] ?? {}) };
      if (Object.keys(dialect).length === 0) delete profile.dialect;
      else profile.dialect = dialect;
      config.profiles[profileName] = profile;
    });
    const { DEFAULT_DIALECT, dialectEntries, readPath, resolveDialect } = await import('../../api/dialect.js');
    const changed = dialectEntries(resolveDialect(dialect)).filter(([key, value]) => readPath(DEFAULT_DIALECT, key) !== value).length;
    ctx.output().success(`Set the dialect of profile "${profileName}" from ${file === '-' ? 'stdin' : file}: `
      + `${changed === 0 ? 'the default' : `${changed} setting${changed === 1 ? '' : 's'} differ${changed === 1 ? 's' : ''} from the default`} (\`cardctl profile show\` lists them)`);
  },
});
