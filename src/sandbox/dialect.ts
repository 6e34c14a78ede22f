// A sandbox that speaks another deployment dialect (sandbox serve --dialect FILE): the one place
// the list query parameters are renamed. The list bodies (routes/common.ts) and the error bodies
// (ApiError.toBody) take the dialect's paging and error paths. The default dialect installs
// nothing, so the sandbox answers as it always has.
import type { FastifyInstance, FastifyRequest, RouteOptions, preValidationHookHandler } from 'fastify';
import { DEFAULT_DIALECT, listOfPath, type Dialect, type ListName } from '../api/dialect.js';
import { LIST_BOUNDS } from '../core/list-bounds.js';
import { ApiError } from './errors.js';

/** True when `dialect` is the default one, in every setting. */
export function isDefaultDialect(dialect: Dialect): boolean {
  return JSON.stringify(dialect) === JSON.stringify(DEFAULT_DIALECT);
}

/** Why the sandbox cannot speak this dialect, or undefined. */
export function unservableDialect(dialect: Dialect): string | undefined {
  if (dialect.maxPageSize > LIST_BOUNDS.maxLimit) {
    return `maxPageSize ${dialect.maxPageSize} is above the ${LIST_BOUNDS.maxLimit} records a sandbox page holds at most`;
  }
  return undefined;
}

/**
 * A list's query parameters arrive under the dialect's names and are renamed to the API's
 * default ones before validation, so the routes and the schemas stay as they are. A parameter
 * the dialect does not name is ignored, as a deployment that does not know it would: asking
 * for `limit` where the page size is `pageSize` gets the default page. A page size above
 * maxPageSize is refused with a 400 naming the parameter (as the default sandbox refuses one
 * above 100).
 */
export function installDialect(app: FastifyInstance, dialect: Dialect): void {
  if (isDefaultDialect(dialect)) return;
  app.addHook('onRoute', (route: RouteOptions) => {
    const list = route.method === 'GET' ? listOfPath(route.url) : undefined;
    if (!list) return;
    const optionOf = new Map(Object.entries(dialect.params[list]).map(([option, param]) => [param, option]));
    const limitName = dialect.params[list].limit;
    const rename: preValidationHookHandler = (request, _reply, done) => {
      const query: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(request.query as Record<string, unknown>)) {
        const option = optionOf.get(name);
        if (option !== undefined) query[option] = value;
      }
      const limit = Number(query.limit);
      if (typeof query.limit === 'string' && Number.isInteger(limit) && limit > dialect.maxPageSize) {
        const message = `must be at most ${dialect.maxPageSize}`;
        return done(new ApiError(400, 'VALIDATION_ERROR', `${limitName} ${message}`, [{ field: limitName, message }]));
      }
      request.query = query;
      done();
    };
    const existing = route.preValidation;
    route.preValidation = existing === undefined ? [rename] : [rename, ...(Array.isArray(existing) ? existing : [existing])];
  });
}

/**
 * The name a 400 gives a field of a list's query: the dialect's parameter name (the schemas
 * validate the renamed query, so they report the default names).
 */
export function queryFieldNamer(dialect: Dialect, request: FastifyRequest): ((field: string) => string) | undefined {
  const list: ListName | undefined = request.method === 'GET' ? listOfPath(request.routeOptions.url ?? '') : undefined;
  if (!list || isDefaultDialect(dialect)) return undefined;
  const names = dialect.params[list] as Record<string, string>;
  return (field) => names[field] ?? field;
}
