import { defineCommand } from '../../core/command.js';
import { validatePaging } from '../../core/validate.js';

interface ListOptions {
  search?: string;
  limit?: string;
  page?: string;
  all?: boolean;
}

export default defineCommand<ListOptions>({
  name: 'list',
  summary: "list the institution's OAuth applications",
  description: `List the institution's OAuth applications, newest first: name, client id (give it to \`cardctl \
login --client-id\`), grant type, scopes, verified/official and creation time. --wide adds the \
record id, certificate subject and description.`,
  aliases: ['ls'],
  options: (c) => c
    .option('--search <text>', 'filter by name')
    .option('--limit <n>', 'page size, 1-100 (default 20)')
    .option('--page <n>', 'page number, from 1')
    .option('--all', 'every page, streamed as it arrives')
    .option('--wide', 'more columns'),
  examples: ['cardctl oauth list', 'cardctl oauth list --search reconciler -o json', 'cardctl oauth list --all -q'],
  async run(ctx, { opts }) {
    const paging = validatePaging(opts);
    if (opts.all && opts.page !== undefined) throw new (await import('../../core/errors.js')).UsageError('--all and --page cannot be combined');
    const { listOAuthApplications, allOAuthApplications } = await import('../../api/oauth.js');
    const { oauthColumns } = await import('../../output/columns/oauth.js');
    const client = await ctx.client();
    const out = ctx.output();
    const listOptions = { idPath: 'institutionId', emptyMessage: 'no OAuth applications yet: create one with `cardctl oauth create`' };
    if (opts.all) {
      const stream = out.stream(oauthColumns, listOptions);
      for await (const page of allOAuthApplications(client, { search: opts.search }, ctx.signal)) await stream.write(page.data ?? [], page.raw);
      await stream.end();
      return;
    }
    const response = await listOAuthApplications(client, { search: opts.search, ...paging }, ctx.signal);
    await out.list(response.data ?? [], oauthColumns, { ...listOptions, raw: response.raw });
    const p = response.pagination;
    if (p && p.pages > p.page && out.format === 'table' && ctx.io.stderrIsTTY && !ctx.globals.quiet) {
      ctx.io.err(`page ${p.page} of ${p.pages} (${p.total} applications); --page ${p.page + 1} for more, or --all\n`);
    }
  },
});
