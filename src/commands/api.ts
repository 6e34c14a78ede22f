import { defineCommand } from '../contract/command.js';
import { defineFlags, type FlagValues } from '../core/flags.js';
import type { Context } from '../contract/context.js';
import { UsageError } from '../core/errors.js';
import type { HttpMethod } from '../api/client.js';

const METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

type ApiFlags = FlagValues<typeof FLAGS>;

/** Headers `-H` may not set: credentials never come from argv, and the client sets these itself. */
const RESERVED_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'cookie', 'host', 'content-length', 'transfer-encoding', 'connection', 'user-agent', 'content-type']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface ApiCall {
  method: HttpMethod;
  path: string;
  body?: unknown;
  auth: 'bearer' | 'apiKey';
  headers?: Record<string, string>;
}

const FLAGS = defineFlags({
  data: { type: 'string', value: 'json', description: 'request body: JSON text, @FILE, or - for stdin' },
  apiKey: { type: 'boolean', description: 'authenticate with the API key (x-api-key) instead of the bearer token' },
  header: { type: 'list', short: 'H', value: 'name:value', repeat: 'each', description: 'add a request header (repeatable; not Authorization or other credentials)' },
});

export default defineCommand({
  name: 'api',
  mcp: 'never',
  output: async () => (await import('../output/shape.js')).outputShape('any'),
  summary: 'make an authenticated request to any endpoint',
  description: `Send a request to any endpoint of the API with the profile's credentials and print the
answer: the envelope's data (or any other JSON the endpoint sends, e.g. /openapi.json) through the
renderer (-o json, --fields, …), or the body exactly as received with -o raw, JSON or not. A query
string in PATH is sent as written. On a production profile, POST, PUT, PATCH, DELETE (and the
activate/deactivate GETs) ask for confirmation like any other write: type the path, or pass
--yes --confirm-production in scripts.`,
  args: [
    { syntax: '<method>', description: 'GET, POST, PUT, PATCH or DELETE; left out, GET (`cardctl api /institutions/cards`, as gh api)' },
    { syntax: '[path]', description: 'path relative to the base URL, e.g. /institutions/cards?limit=5' },
  ],
  flags: FLAGS,
  examples: [
    'cardctl api GET /institutions/cards',
    'cardctl api /institutions/cards/6650c0ffee     # GET when no method is given',
    'cardctl api GET "/institutions/cards?search=ADA&limit=5" -o json',
    "cardctl api PUT /institutions/cards/ID/renew --data '{\"expiration\":\"202912\",\"renewReason\":\"RENEW\"}'",
    'cardctl api POST /util/cards/import --api-key --data @card.json',
    'cardctl api GET /institutions/transactions -o raw',
    "cardctl api GET /institutions/cards -H 'X-Request-Id: 42'",
  ],
  // One argument is the path of a GET (gh api's habit); a method alone still needs its path.
  parse: ({ args, opts }) => (args[1] === undefined && !METHODS.includes(String(args[0]).toUpperCase() as HttpMethod)
    ? apiCall('GET', String(args[0]), opts)
    : apiCall(String(args[0]), args[1] ?? '', opts)),
  async run(ctx, parsed) {
    const call = await withStdinBody(ctx, parsed);
    // A write through `api` is a write like any other: on production it needs the same
    // confirmation (typed, or --yes --confirm-production), before anything is sent.
    const [{ isMutation }, guard] = await Promise.all([import('../api/mutation.js'), import('../contract/guard.js')]);
    if (isMutation(call.method, call.path) && guard.isProduction(ctx)) {
      const path = call.path.split('?')[0]!;
      await guard.confirmDestructive(ctx, { description: `send ${call.method} ${path}`, typedConfirmation: path, typedLabel: `the path (${path})` });
    }
    const client = await ctx.client();
    const response = await client.request({
      method: call.method,
      path: call.path,
      body: call.body,
      auth: call.auth,
      headers: call.headers,
      // Whatever the endpoint answers (/openapi.json, /sandbox/pin-key, text): not only envelopes.
      envelope: 'any',
      signal: ctx.signal,
    });
    if (ctx.settings().output === 'raw' && ctx.globals.jq === undefined && ctx.globals.template === undefined) {
      // -o raw: the body as received (card numbers masked), JSON or not; ends with a newline like all raw output.
      await ctx.output().value(null, response.raw);
      return;
    }
    let shown = response.data;
    if (shown === undefined && response.raw.trim() !== '') {
      try {
        // An envelope without data (e.g. only a message): show the whole body rather than nothing.
        shown = JSON.parse(response.raw);
      } catch {
        // Not JSON (text, HTML): printed as it came.
        ctx.io.out(response.raw.endsWith('\n') ? response.raw : `${response.raw}\n`);
        return;
      }
    }
    await ctx.output().value(shown ?? null, response.raw);
  },
});

/** The call as the command line gives it; `--data -` leaves the body to be read from stdin by run(). */
export interface ParsedApiCall extends ApiCall {
  bodyFromStdin: boolean;
}

/** Method, path, headers and --data (inline or @FILE) checked: the parse step of `api`. */
export async function apiCall(methodArg: string, pathArg: string, opts: ApiFlags): Promise<ParsedApiCall> {
  const method = methodArg.toUpperCase() as HttpMethod;
  if (!METHODS.includes(method)) {
    throw new UsageError(`unknown method "${methodArg}"`, { hint: `use one of: ${METHODS.join(', ')}` });
  }
  const path = pathArg.trim();
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('//')) {
    throw new UsageError(`give a path relative to the base URL, not a full URL: "${pathArg}"`, {
      hint: 'e.g. cardctl api GET /institutions/cards; the base URL comes from the profile or --base-url',
    });
  }
  if (path === '') throw new UsageError('missing <path>');
  let body: unknown;
  if (opts.data !== undefined) {
    if (method === 'GET') throw new UsageError('--data cannot be sent with GET', { hint: 'use POST, PUT or PATCH for a request body' });
    if (opts.data !== '-') body = parseJson(await readData(opts.data));
  }
  const headers = opts.header?.length ? parseHeaders(opts.header) : undefined;
  return { method, path: path.startsWith('/') ? path : `/${path}`, body, auth: opts.apiKey ? 'apiKey' : 'bearer', ...(headers ? { headers } : {}), bodyFromStdin: opts.data === '-' };
}

/** The call with its body, `--data -` read from stdin. */
async function withStdinBody(ctx: Pick<Context, 'io' | 'signal'>, { bodyFromStdin, ...call }: ParsedApiCall): Promise<ApiCall> {
  if (!bodyFromStdin) return call;
  const { readAll } = await import('../core/io.js');
  return { ...call, body: parseJson(await readAll(ctx.io.stdin, ctx.signal)) };
}

/** The whole call, stdin included (`api` reads stdin in run()). */
export async function parseApiCall(ctx: Pick<Context, 'io' | 'signal'>, methodArg: string, pathArg: string, opts: ApiFlags): Promise<ApiCall> {
  return withStdinBody(ctx, await apiCall(methodArg, pathArg, opts));
}

/** `-H 'Name: value'` → a header; a name that is not a token, a reserved name, or a value with a control or non-ASCII character is a usage error. */
export function parseHeaders(specs: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const spec of specs) {
    const colon = spec.indexOf(':');
    const name = colon < 0 ? spec.trim() : spec.slice(0, colon).trim();
    if (colon < 0 || !HEADER_NAME.test(name)) {
      throw new UsageError(`invalid -H "${name.slice(0, 40)}": give "Name: value", the name letters, digits and - only`);
    }
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.has(lower)) {
      throw new UsageError(`-H ${name} is not allowed`, {
        hint: lower === 'authorization' || lower === 'x-api-key' || lower === 'cookie' || lower === 'proxy-authorization'
          ? 'credentials never come from argv: use the profile (`cardctl login`), CARDCTL_TOKEN or CARDCTL_API_KEY, and --api-key'
          : 'cardctl sets this header itself',
      });
    }
    const value = spec.slice(colon + 1).trim();
    // Printable ASCII and spaces only: a line break would start another header (or fail as a network error).
    const bad = [...value].findIndex((ch) => ch < ' ' || ch > '~');
    if (bad >= 0) {
      const code = value.charCodeAt(bad);
      const what = code === 10 || code === 13 ? 'a line break' : code < 32 || code === 127 ? 'a control character' : 'a non-ASCII character';
      throw new UsageError(`invalid -H ${name}: the value contains ${what} (character ${bad + 1})`, { hint: 'header values are printable ASCII' });
    }
    headers[lower] = value;
  }
  return headers;
}

/** --data as given: inline JSON, or @FILE. */
async function readData(data: string): Promise<string> {
  if (data.startsWith('@')) {
    const file = data.slice(1);
    const { readTextFile } = await import('../core/text.js');
    try {
      return await readTextFile(file);
    } catch (error) {
      throw new UsageError(`--data @${file}: cannot read the file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  }
  return data;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new UsageError(`--data is not valid JSON: ${(error as Error).message}`, {
      hint: "quote the JSON for the shell, e.g. --data '{\"name\":\"x\"}', or use --data @file.json",
    });
  }
}
