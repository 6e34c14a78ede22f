// Every list command is built here: its filters are its own; the paging flags, the --all/--page
// conflict, --all streaming with back-pressure, the next-page hint and --wide are the same for all.
import type { Pagination } from '../api/client.js';
import { DEFAULT_DIALECT } from '../api/dialect.js';
import { type CommandDefinition, defineCommand, type McpRule, type McpUse } from '../contract/command.js';
import type { Context } from '../contract/context.js';
import { UsageError } from '../core/errors.js';
import { defineFlags, type Flags, type FlagValues } from '../core/flags.js';
import { validatePaging } from '../core/validate.js';
import type { Column } from '../output/renderer.js';

/** One page of records as the list shows it. */
export interface ListPage<R> {
  /** An array, or (a streamed page) an iterable that parses each row when reached. */
  rows: Iterable<R>;
  /**
   * The body as received, for `-o raw` (left out when the rows were filtered here); called only by
   * `-o raw`, so a streamed page's body is never decoded whole otherwise.
   */
  raw?: () => string | undefined;
  pagination?: Pagination;
  /** No later page can hold a row to show (e.g. older than --since): stop reading. */
  last?: boolean;
}

interface ListBase<F extends Flags, Q, R> {
  name: string;
  summary: string;
  description?: string;
  aliases?: string[];
  examples?: string[];
  /** What `cardctl mcp` makes of the list (a read, unless it says otherwise), with its bounds if any. */
  mcp: McpUse | McpRule;
  /** The filters: every flag besides paging and --wide. */
  flags: F;
  /** Help of --wide: which columns it adds. */
  wide: string;
  /** Where the identifier is, for --quiet (default `id`). */
  idPath?: string;
  /** Filter flags → the query; throws UsageError before anything is read. `now`: when the command line was read. */
  query(opts: FlagValues<F>, now: Date): Q;
  emptyMessage(query: Q): string;
  columns(): Promise<Column<R>[]>;
  /** What the list prints, for --fields before anything is read (CommandDefinition.output); else the records are checked. */
  output?: CommandDefinition['output'];
}

/** A list the API pages: --limit, --page and --all. */
export interface PagedList<F extends Flags, Q, R> extends ListBase<F, Q, R> {
  /** Plural noun of the next-page hint: "page 1 of 3 (52 cards)". */
  noun: string;
  /** Help of --limit, when the page size is not the usual one. */
  limit?: string;
  page(ctx: Context, query: Q, paging: { limit?: number; page?: number }): Promise<ListPage<R>>;
  /**
   * Every page from the first, as they arrive (--all): each handed to `onPage`, the next read
   * once it is done (forEachPage in api/paging.ts), so one page is alive at a time.
   */
  pages(ctx: Context, query: Q, limit: number | undefined, onPage: (page: ListPage<R>) => Promise<boolean>): Promise<void>;
}

/** A list read whole from this machine: --limit keeps the last N. */
export interface LocalList<F extends Flags, Q, R> extends ListBase<F, Q, R> {
  read(ctx: Context, query: Q): Promise<R[]> | R[];
}

const PAGING_FLAGS = defineFlags({
  limit: { type: 'string', value: 'n', description: `page size, 1-${DEFAULT_DIALECT.maxPageSize} or the profile's maxPageSize (default 20; the maximum with --all)` },
  page: { type: 'string', value: 'n', description: 'page number, from 1' },
  all: { type: 'boolean', description: 'every page, streamed as it arrives' },
});

const LOCAL_LIMIT = defineFlags({
  limit: { type: 'string', value: 'n', description: 'only the last N entries' },
});

// Columns of a table: nothing to an assistant, whose answers are JSON.
const wideFlag = (description: string) => defineFlags({ wide: { type: 'boolean', mcp: false, description } });

/** `--all` and `--page` together, worded once for every list. */
function allAndPage(): UsageError {
  return new UsageError('--all and --page cannot be used together', { hint: '--all reads every page from the first; --limit sets the page size' });
}

type WideFlag = { wide: { type: 'boolean'; description: string } };

/** What a list's flags mean once checked: its query and how much to read. */
export interface ListInput<Q> {
  query: Q;
  limit?: number;
  page?: number;
  all: boolean;
  wide: boolean;
}

/**
 * A list's flags as its parse step checks them: all but the bound of a paged list's --limit,
 * the profile's maxPageSize, which run() checks (the profile is read there).
 */
export interface ParsedList<Q> extends Omit<ListInput<Q>, 'limit'> {
  limit?: number | { text: string };
}

/** A list command, and its checks alone (flags → ListInput, or a UsageError). */
export type ListCommand<F extends Flags, Q> = CommandDefinition<F, [], ParsedList<Q>> & {
  parseInput(opts: FlagValues<F>, ctx: Context): ListInput<Q>;
};

export function listCommand<const F extends Flags, Q, R>(spec: PagedList<F, Q, R>): ListCommand<F & typeof PAGING_FLAGS & WideFlag, Q>;
export function listCommand<const F extends Flags, Q, R>(spec: LocalList<F, Q, R>): ListCommand<F & typeof LOCAL_LIMIT & WideFlag, Q>;
export function listCommand<const F extends Flags, Q, R>(spec: PagedList<F, Q, R> | LocalList<F, Q, R>): ListCommand<Flags, Q> {
  const paged = 'page' in spec;
  const paging = paged ? { ...PAGING_FLAGS, limit: { ...PAGING_FLAGS.limit, description: spec.limit ?? PAGING_FLAGS.limit.description } } : LOCAL_LIMIT;
  const parseFlags = (opts: FlagValues<Flags>, now: Date): ParsedList<Q> => {
    // The overloads give callers the exact type; here the filters and the paging flags added above are read.
    const values = opts as FlagValues<F> & { limit?: string; page?: string; all?: boolean; wide?: boolean };
    if (!paged) return { query: spec.query(values, now), limit: localLimit(values.limit), all: true, wide: Boolean(values.wide) };
    const { page } = validatePaging({ page: values.page }, DEFAULT_DIALECT.maxPageSize);
    if (values.all && page !== undefined) throw allAndPage();
    const limit = values.limit === undefined ? undefined : { text: values.limit };
    return { query: spec.query(values, now), limit, page, all: Boolean(values.all), wide: Boolean(values.wide) };
  };
  /** --limit of a paged list within the profile's maxPageSize. */
  const bounded = (parsed: ParsedList<Q>, ctx: Context): ListInput<Q> => {
    const { limit } = parsed;
    if (limit === undefined || typeof limit === 'number') return { ...parsed, limit };
    return { ...parsed, limit: validatePaging({ limit: limit.text }, ctx.dialect().maxPageSize).limit };
  };
  const parseInput = (opts: FlagValues<Flags>, ctx: Context): ListInput<Q> => bounded(parseFlags(opts, ctx.clock.now()), ctx);
  const definition = defineCommand({
    name: spec.name,
    summary: spec.summary,
    description: spec.description,
    aliases: spec.aliases,
    examples: spec.examples,
    mcp: spec.mcp,
    output: spec.output,
    flags: { ...spec.flags, ...paging, ...wideFlag(spec.wide) } as Flags,
    parse: ({ opts, now }) => parseFlags(opts, now),
    async run(ctx, parsed: ParsedList<Q>) {
      const input = bounded(parsed, ctx);
      const options = { idPath: spec.idPath, emptyMessage: spec.emptyMessage(input.query) };
      const output = ctx.output({ wide: input.wide });
      const columns = await spec.columns();
      if (!paged) {
        const rows = await spec.read(ctx, input.query);
        await output.list(input.limit === undefined ? rows : rows.slice(-input.limit), columns, options);
        return;
      }
      if (input.all) {
        const stream = output.stream(columns, options);
        await spec.pages(ctx, input.query, input.limit, async (each) => {
          // A slow reader (`| less`, a slow disk): wait for it rather than buffer pages in memory.
          await stream.write(each.rows, each.raw);
          return !each.last;
        });
        await stream.end();
        return;
      }
      const one = await spec.page(ctx, input.query, { limit: input.limit, page: input.page });
      await output.list(one.rows, columns, { ...options, raw: one.raw?.() });
      // The hint goes to stderr, so it is shown when stderr is a terminal (stdout may be a pipe).
      const p = one.pagination;
      const page = p?.page ?? input.page ?? 1;
      if (p && p.pages > page && output.format === 'table' && ctx.io.stderrIsTTY && !ctx.globals.quiet) {
        const total = p.total === undefined ? '' : ` (${p.total} ${spec.noun})`;
        ctx.log.info(`page ${page} of ${p.pages}${total}; --page ${page + 1} for more, --all for every page`, 'dim');
      }
    },
  });
  return Object.assign(definition, { parseInput });
}

function localLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`invalid --limit "${text}": expected a whole number from 1`);
  return limit;
}
