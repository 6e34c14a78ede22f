// `cardctl mcp`: a Model Context Protocol server over stdio for the profile in use, whose tools are
// the command definitions themselves (src/mcp/): reads always, simulations on a sandbox, changes
// only for the groups the person names with --allow-write.
import { defineCommand } from '../contract/command.js';
import { UsageError } from '../core/errors.js';

export default defineCommand({
  name: 'mcp',
  mcp: 'never',
  summary: 'serve the profile to an AI assistant over the Model Context Protocol (stdio)',
  description: `Runs an MCP server on stdin/stdout for the profile in use (--profile as everywhere), for an
assistant such as Claude Desktop to start. Its tools are cardctl's commands, named after their path
(cards_list, tx_show, simulate_authorization), with inputs from their flags and the command's JSON
as the result, compact and at most 256 kB, text written by others (cardholders, merchants,
webhooks) apart and marked untrusted; card numbers masked, and no token, key, webhook secret or
PIN is ever an input or an output. Files are read and written only inside the directory the
server was started in.

By default the tools only read: cards, transactions, OAuth applications, the audit journal,
doctor, the profile (secrets masked); on a sandbox profile also the simulations (every intent
and lifecycle message, scenario runs, a bounded load run; each stopped at 60 s). Tools that
change anything exist only for the groups named with --allow-write (cards, oauth, users,
import), each asks for a reason, and each call is in the audit journal marked as made through MCP with that reason. On a production
profile a change needs --allow-production-writes as well, typed by you when you register the
server, and a client that can ask you (MCP elicitation) asks you to confirm each one: an
assistant cannot answer the production confirmation for you.

The help topics are resources: cardctl-help://<topic>. Nothing but the protocol goes to stdout;
notes go to stderr. See \`cardctl help mcp\`.`,
  flags: {
    allowWrite: { type: 'list', value: 'group', repeat: 'variadic', description: 'offer the tools that change things in these command groups (cards, oauth, users, import)' },
    allowProductionWrites: { type: 'boolean', description: 'on a production profile, let those tools run (confirming each as --yes --confirm-production would)' },
  },
  examples: ['cardctl mcp --profile sandbox', 'cardctl mcp --profile sandbox --allow-write cards', 'cardctl mcp --profile live --allow-write cards --allow-production-writes'],
  async parse({ opts, cli }) {
    const { commandTools, writeGroupNames } = await import('../mcp/tools.js');
    const tools = commandTools(await cli.tree());
    const groups = writeGroupNames(tools);
    const writeGroups = new Set(opts.allowWrite ?? []);
    const unknown = [...writeGroups].filter((group) => !groups.includes(group));
    if (unknown.length) {
      throw new UsageError(`--allow-write: no command group ${unknown.map((g) => `"${g}"`).join(', ')} has tools that change anything`, { hint: `groups: ${groups.join(', ')}` });
    }
    if (opts.allowProductionWrites && writeGroups.size === 0) {
      throw new UsageError('--allow-production-writes needs --allow-write GROUP: it lets the tools of those groups run on production');
    }
    return { tools, writeGroups, allowProductionWrites: Boolean(opts.allowProductionWrites), cli };
  },
  async run(ctx, input) {
    const [{ missingProfile }, { assertProfileExplicit, isProduction }, { isSandbox }, { toolsInScope }, { serveMcp }] = await Promise.all([
      import('../contract/context.js'), import('../contract/guard.js'), import('../pin/key.js'), import('../mcp/tools.js'), import('../mcp/server.js'),
    ]);
    const missing = missingProfile(ctx);
    if (missing) throw missing;
    assertProfileExplicit(ctx);
    const settings = ctx.settings();
    const production = isProduction(ctx);
    const tools = toolsInScope(input.tools, { sandbox: isSandbox(settings), writeGroups: input.writeGroups });
    const writes = tools.filter((tool) => tool.use === 'write').length;
    ctx.log.info(`cardctl mcp: ${tools.length} tools (${writes} that change things) for profile "${settings.profileName}"${production ? ' (production)' : ''} on stdio`);
    await serveMcp({
      host: input.cli,
      tools,
      settings: {
        env: ctx.env,
        profile: settings.profileName,
        production,
        allowProductionWrites: input.allowProductionWrites,
        log: (line) => ctx.log.info(line),
      },
      stdin: ctx.io.stdin,
      stdout: ctx.io.stdout,
      signal: ctx.signal,
    });
  },
});
