// The deployment dialect: the details the API reference leaves open and a deployment fixes its
// own way (the names of the list query parameters, how a list says it has more pages, the
// largest page size, where an error body carries its message, code and field errors). The
// sandbox speaks DEFAULT_DIALECT unless started with --dialect; the CLI speaks the dialect of
// its profile. Plain data and small functions: the CLI loads this module, so no TypeBox, no
// fastify, and yaml only when a file is parsed.
import { UsageError } from '../core/errors.js';
import { LIST_BOUNDS } from '../core/list-bounds.js';
import { isObject } from '../core/is-object.js';
import { setPath } from '../core/object-path.js';

/** The options of each list, by the API's default names (what src/api/<resource>.ts sends). */
const LIST_OPTIONS = {
  cards: ['search', 'cardId', 'status', 'page', 'limit'],
  transactions: ['merchantId', 'terminalId', 'cardId', 'cardStatus', 'transactionStatus', 'page', 'limit'],
  oauth: ['search', 'page', 'limit'],
} as const;

export type ListName = keyof typeof LIST_OPTIONS;
export type ListOption<L extends ListName> = (typeof LIST_OPTIONS)[L][number];
export const LIST_NAMES = Object.keys(LIST_OPTIONS) as ListName[];

/** The path of each list endpoint. */
export const LIST_PATHS: Readonly<Record<ListName, string>> = {
  cards: '/institutions/cards',
  transactions: '/institutions/transactions',
  oauth: '/institutions/oauth/applications',
};

/** The list an endpoint path serves, if it is one. */
export function listOfPath(path: string): ListName | undefined {
  return LIST_NAMES.find((list) => LIST_PATHS[list] === path);
}

/** A list's query by the API's default option names: page and limit are numbers, filters text. */
export type ListParams<L extends ListName> = {
  [O in ListOption<L>]?: O extends 'page' | 'limit' ? number : string;
};

export const PAGING_STYLES = ['metadata', 'short-page'] as const;
export type PagingStyle = (typeof PAGING_STYLES)[number];

export interface Dialect {
  /** The query parameter name of each list option, keyed by the option's default name. */
  params: { [L in ListName]: Record<ListOption<L>, string> };
  paging: {
    /** metadata: the body says how many pages there are; short-page: a page shorter than the page size is the last. */
    style: PagingStyle;
    /** Dotted path of the page count in a list body (metadata style). */
    pages: string;
    /** Dotted path of the record total (metadata style). */
    total: string;
  };
  /** The largest page size the deployment serves. */
  maxPageSize: number;
  errors: {
    /** Dotted paths in an error body. */
    message: string;
    code: string;
    /** Per-field errors, [{field, message}]. */
    fields: string;
  };
}

/** What a profile or a dialect file holds: some part of a Dialect; the rest is the default. */
export type DialectOverrides = {
  params?: { [L in ListName]?: Partial<Dialect['params'][L]> };
  paging?: Partial<Dialect['paging']>;
  maxPageSize?: number;
  errors?: Partial<Dialect['errors']>;
};

const identity = <L extends ListName>(list: L) =>
  Object.fromEntries(LIST_OPTIONS[list].map((option) => [option, option])) as Record<ListOption<L>, string>;

/** What the sandbox speaks by default, and what the CLI speaks unless its profile says otherwise. */
export const DEFAULT_DIALECT: Readonly<Dialect> = deepFreeze({
  params: { cards: identity('cards'), transactions: identity('transactions'), oauth: identity('oauth') },
  paging: { style: 'metadata', pages: 'pagination.pages', total: 'pagination.total' },
  maxPageSize: LIST_BOUNDS.maxLimit,
  errors: { message: 'message', code: 'error', fields: 'errors' },
});

type ParamKey = { [L in ListName]: `params.${L}.${ListOption<L>}` }[ListName];
/** A dialect setting as `profile set` names it. */
export type DialectKey = ParamKey | 'paging.style' | 'paging.pages' | 'paging.total' | 'maxPageSize' | 'errors.message' | 'errors.code' | 'errors.fields';

const LIST_NOUN: Record<ListName, string> = { cards: 'card', transactions: 'transaction', oauth: 'OAuth application' };
const OTHER_KEYS: Record<Exclude<DialectKey, ParamKey>, string> = {
  'paging.style': `how a list ends: ${PAGING_STYLES.join(' or ')}`,
  'paging.pages': 'dotted path of the page count in a list body',
  'paging.total': 'dotted path of the record total in a list body',
  maxPageSize: 'largest page size the deployment serves',
  'errors.message': 'dotted path of the message in an error body',
  'errors.code': 'dotted path of the error code in an error body',
  'errors.fields': 'dotted path of the field errors in an error body',
};

/** Every dialect setting with a one-line description, in the order of DEFAULT_DIALECT. */
export const DIALECT_KEYS: Readonly<Record<DialectKey, string>> = Object.fromEntries(
  flatten(DEFAULT_DIALECT).map(([key]) => {
    const [group, list, option] = key.split('.');
    const description = group === 'params'
      ? `query parameter of the ${LIST_NOUN[list as ListName]} list's ${option}`
      : OTHER_KEYS[key as keyof typeof OTHER_KEYS];
    return [key, description];
  }),
) as Record<DialectKey, string>;

export function isDialectKey(key: string): key is DialectKey {
  return Object.hasOwn(DIALECT_KEYS, key);
}

/** [key, value] for every setting of a dialect, in the order of DIALECT_KEYS. */
export function dialectEntries(dialect: Dialect): Array<[DialectKey, string | number]> {
  return flatten(dialect) as Array<[DialectKey, string | number]>;
}

// ---------- validation ----------

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_.[\]-]*$/;
const PATH_SEGMENT = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);
const MAX_NAME = 64;
const MAX_SEGMENTS = 6;
/** The largest maxPageSize a dialect may declare. */
export const MAX_PAGE_SIZE_LIMIT = 10_000;

/** Checks one setting's value (text as given, or a parsed JSON/YAML value); returns it typed. */
export function parseDialectValue(key: DialectKey, value: unknown, where: string = key): string | number {
  const fail = (expected: string): never => {
    throw new UsageError(`invalid ${where} ${describeValue(value)}: expected ${expected}`);
  };
  if (key === 'maxPageSize') {
    const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_PAGE_SIZE_LIMIT) fail(`a whole number from 1 to ${MAX_PAGE_SIZE_LIMIT}`);
    return n as number;
  }
  if (typeof value !== 'string') return fail('text');
  const text = value as string;
  if (key === 'paging.style') {
    if (!(PAGING_STYLES as readonly string[]).includes(text)) fail(`one of ${PAGING_STYLES.join(', ')}`);
    return text;
  }
  if (key.startsWith('params.')) {
    if (text.length > MAX_NAME || !PARAM_NAME.test(text)) fail(`a query parameter name of up to ${MAX_NAME} letters, digits, _ . - [ ], starting with a letter or _`);
    return text;
  }
  const segments = text.split('.');
  if (text.length > MAX_NAME * 2 || segments.length > MAX_SEGMENTS
    || segments.some((s) => s.length > MAX_NAME || !PATH_SEGMENT.test(s) || FORBIDDEN_SEGMENTS.has(s))) {
    fail(`a dotted path of up to ${MAX_SEGMENTS} names (letters, digits, _ $ -), e.g. error.detail`);
  }
  return text;
}

function describeValue(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}…"` : text;
}

/**
 * The full dialect: the defaults with `overrides` (a DialectOverrides, or what a profile stores as
 * plain data) on top. Every value is checked, and so is what only the whole can tell (two options
 * of one list on the same parameter; one error path inside another). Throws a UsageError naming
 * the setting.
 */
export function resolveDialect(overrides: Readonly<Record<string, unknown>> | undefined, name = 'dialect'): Dialect {
  const dialect = structuredClone(DEFAULT_DIALECT) as Dialect;
  for (const [key, value] of flatten(overrides ?? {})) {
    if (!isDialectKey(key)) throw new UsageError(`${name}: unknown setting "${key}"`, { hint: `settings: ${Object.keys(DIALECT_KEYS).join(', ')}` });
    setPath(dialect, key, parseDialectValue(key, value, `${name}: ${key}`));
  }
  for (const list of LIST_NAMES) {
    const seen = new Map<string, string>();
    for (const [option, param] of Object.entries(dialect.params[list]) as Array<[string, string]>) {
      const other = seen.get(param);
      if (other) throw new UsageError(`${name}: params.${list}.${option} and params.${list}.${other} are both "${param}"`);
      seen.set(param, option);
    }
  }
  const nested = (group: string, paths: Record<string, string>) => {
    for (const [a, pathA] of Object.entries(paths)) {
      for (const [b, pathB] of Object.entries(paths)) {
        if (a !== b && (pathA === pathB || pathB.startsWith(`${pathA}.`))) {
          throw new UsageError(`${name}: ${group}.${a} "${pathA}" and ${group}.${b} "${pathB}" overlap`, { hint: 'give each its own place in the body' });
        }
      }
    }
  };
  nested('paging', { pages: dialect.paging.pages, total: dialect.paging.total });
  nested('errors', dialect.errors);
  // The envelope's own members stay what they are: a path into them would overwrite them.
  const outside = (group: string, paths: Record<string, string>, reserved: string[]) => {
    for (const [key, path] of Object.entries(paths)) {
      if (reserved.includes(path.split('.')[0]!)) throw new UsageError(`${name}: ${group}.${key} "${path}" is inside the envelope's ${path.split('.')[0]}`);
    }
  };
  outside('paging', { pages: dialect.paging.pages, total: dialect.paging.total }, ['statusCode', 'message', 'data']);
  outside('errors', dialect.errors, ['statusCode', 'details']);
  return dialect;
}

/** Only what differs from the default, e.g. to store in a profile. */
export function dialectOverrides(dialect: Dialect): DialectOverrides {
  const overrides: Record<string, unknown> = {};
  const defaults = new Map(flatten(DEFAULT_DIALECT));
  for (const [key, value] of flatten(dialect)) if (defaults.get(key) !== value) setPath(overrides, key, value);
  return overrides as DialectOverrides;
}

/** The overrides with one setting changed (its default, or undefined, removes it); checked whole. */
export function withDialectValue(overrides: Parameters<typeof resolveDialect>[0], key: DialectKey, value: string | number | undefined): DialectOverrides {
  const dialect = resolveDialect(overrides);
  const next = value === undefined ? readPath(DEFAULT_DIALECT, key) : parseDialectValue(key, value);
  setPath(dialect, key, next);
  return dialectOverrides(resolveDialect(dialectOverrides(dialect)));
}

/**
 * A dialect file, JSON or YAML: some part of a Dialect. Unknown keys and bad values are refused
 * with a UsageError naming the key; `name` (the file name) starts the message.
 */
export async function parseDialectFile(text: string, name: string): Promise<DialectOverrides> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const { parseYamlFile } = await import('../core/yaml.js');
    parsed = (await parseYamlFile(text, name, 'dialect file')).value;
  }
  if (parsed === null || parsed === undefined) parsed = {};
  if (!isObject(parsed)) throw new UsageError(`${name}: expected a mapping of settings such as params, paging, maxPageSize, errors`);
  const checkShape = (value: Record<string, unknown>, prefix: string, template: object) => {
    const allowed = new Map<string, unknown>(Object.entries(template));
    for (const [key, inner] of Object.entries(value)) {
      const at = prefix ? `${prefix}.${key}` : key;
      if (!allowed.has(key)) {
        throw new UsageError(`${name}: unknown setting "${at}"`, { hint: `allowed here: ${[...allowed.keys()].map((k) => (prefix ? `${prefix}.${k}` : k)).join(', ')}` });
      }
      const expected = allowed.get(key);
      if (isObject(expected)) {
        if (!isObject(inner)) throw new UsageError(`${name}: ${at} must be a mapping (of ${Object.keys(expected).join(', ')})`);
        checkShape(inner, at, expected);
      }
    }
  };
  checkShape(parsed, '', DEFAULT_DIALECT);
  return dialectOverrides(resolveDialect(parsed as DialectOverrides, name));
}

// ---------- using a dialect ----------

/** A list's query with the dialect's parameter names (undefined values stay undefined: not sent). */
export function listQuery<L extends ListName>(dialect: Dialect, list: L, params: ListParams<L>): Record<string, string | number | undefined> {
  const names = dialect.params[list] as Record<string, string>;
  const query: Record<string, string | number | undefined> = {};
  for (const [option, value] of Object.entries(params)) query[names[option] ?? option] = value as string | number | undefined;
  return query;
}

/** The value at a dotted path of a parsed body, or undefined. */
export function readPath(body: unknown, path: string): unknown {
  let value = body;
  for (const segment of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}


/** [dotted key, leaf value] of a nested object, depth first. */
function flatten(value: unknown, prefix = ''): Array<[string, unknown]> {
  if (!isObject(value)) return [[prefix, value]];
  return Object.entries(value).flatMap(([key, inner]) => flatten(inner, prefix ? `${prefix}.${key}` : key));
}

function deepFreeze<T>(value: T): T {
  if (isObject(value)) for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}
