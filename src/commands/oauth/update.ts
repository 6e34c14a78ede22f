import { defineCommand } from '../../contract/command.js';
import { defineFlags } from '../../core/flags.js';
import { NotFoundError, UsageError } from '../../core/errors.js';
import { validateScope, validateUrl } from '../../core/validate.js';

const FLAGS = defineFlags({
  name: { type: 'string', value: 'name', description: 'application name' },
  description: { type: 'string', value: 'text', description: 'description' },
  websiteUrl: { type: 'string', value: 'url', description: 'website URL' },
  scope: { type: 'list', value: 'scope', repeat: 'variadic', description: 'permission (repeatable); replaces the current scopes' },
});

export default defineCommand({
  name: 'update',
  mcp: 'write',
  output: async () => (await import('../output-shapes.js')).oauthShape(),
  summary: 'update an OAuth application',
  description: `Update an OAuth application's name, description, website URL and scopes.

The API needs all four: what you do not give is taken from the application as it is now. The \
application record does not show its website URL, so --website-url is needed unless the list \
answer carries one. ID is the application's id or its client id (both are shown by \
\`cardctl oauth list --wide\`). --scope replaces the whole scope list.`,
  args: [{ syntax: '<id>', description: 'application id or client id' }],
  flags: FLAGS,
  examples: [
    'cardctl oauth update 6652aa --scope read:card --scope read:transaction --website-url https://example.com',
    'cardctl oauth update 6652aa --name reconciler --description "nightly" --website-url https://example.com',
  ],
  parse({ args, opts }) {
    const id = String(args[0] ?? '').trim();
    if (!id) throw new UsageError('missing the application id: cardctl oauth update ID');
    const name = opts.name?.trim();
    if (opts.name !== undefined && !name) throw new UsageError('--name is empty');
    const websiteUrl = opts.websiteUrl === undefined ? undefined : validateUrl('--website-url', opts.websiteUrl);
    const scopes = opts.scope === undefined
      ? undefined
      : [...new Set(opts.scope.flatMap((s) => s.split(',')).filter((s) => s.trim()).map((s) => validateScope('--scope', s)))];
    if (scopes && scopes.length === 0) throw new UsageError('--scope: give at least one scope');
    if (name === undefined && opts.description === undefined && websiteUrl === undefined && scopes === undefined) {
      throw new UsageError('nothing to update: give --name, --description, --website-url or --scope');
    }
    return { id, name, description: opts.description, websiteUrl, scopes };
  },
  async run(ctx, { id, name, description, websiteUrl, scopes }) {

    const { findOAuthApplication, updateOAuthApplication } = await import('../../api/oauth.js');
    const { oauthRows } = await import('../../output/columns/oauth.js');
    const client = await ctx.client();
    const current = await findOAuthApplication(client, id, ctx.signal);
    if (!current) throw new NotFoundError(`no OAuth application with id or client id "${id}"`, { hint: 'see `cardctl oauth list --wide`' });
    const body = {
      name: name ?? current.name,
      description: description ?? current.description ?? '',
      websiteUrl: websiteUrl ?? (current as { websiteUrl?: string }).websiteUrl ?? '',
      scopes: scopes ?? current.scopes ?? [],
    };
    if (!body.websiteUrl) {
      throw new UsageError('missing --website-url: the API requires a website URL and the application has none yet');
    }
    // The fields not given come from the application as read: sent for that version only.
    const response = await updateOAuthApplication(client, current.id ?? current._id ?? id, body, current.updatedAt || undefined, ctx.signal);
    const out = ctx.output();
    if (out.format === 'raw') return out.value(response.data, response.raw);
    out.success(`updated OAuth application "${body.name}"`);
    await out.record(response.data ?? { ...current, ...body }, { rows: oauthRows, idPath: 'institutionId' });
  },
});
