import { DEFAULT_DIALECT } from '../../api/dialect.js';
import { listCommand } from '../list-command.js';
import { LIST_BOUNDS } from '../../core/list-bounds.js';

export default listCommand({
  name: 'list',
  mcp: 'read',
  summary: "list the institution's OAuth applications",
  description: `List the institution's OAuth applications, newest first: name, client id (give it to \`cardctl \
login --client-id\`), grant type, scopes, verified/official and creation time. --wide adds the \
record id, certificate subject and description.`,
  aliases: ['ls'],
  flags: {
    search: { type: 'string', value: 'text', maxLength: LIST_BOUNDS.maxText, description: 'filter by name' },
  },
  limit: `page size, 1-${DEFAULT_DIALECT.maxPageSize} or the profile's maxPageSize (default 20)`,
  wide: 'more columns',
  noun: 'applications',
  idPath: 'institutionId',
  examples: ['cardctl oauth list', 'cardctl oauth list --search reconciler -o json', 'cardctl oauth list --all -q'],
  query: (opts) => ({ search: opts.search }),
  emptyMessage: () => 'no OAuth applications yet: create one with `cardctl oauth create`',
  columns: async () => (await import('../../output/columns/oauth.js')).oauthColumns,
  async page(ctx, query, paging) {
    const { listOAuthApplications } = await import('../../api/oauth.js');
    const response = await listOAuthApplications(await ctx.client(), { ...query, ...paging }, ctx.signal);
    return { rows: response.data ?? [], raw: () => response.raw, pagination: response.pagination };
  },
  async pages(ctx, query, _limit, onPage) {
    const { allOAuthApplications } = await import('../../api/oauth.js');
    const { forEachPage } = await import('../../api/paging.js');
    await forEachPage(allOAuthApplications(await ctx.client(), query, ctx.signal), (response) => onPage({ rows: response.data ?? [], raw: () => response.raw }));
  },
});
