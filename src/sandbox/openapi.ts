// GET /openapi.json: an OpenAPI 3.1 document generated from the routes as registered, i.e.
// from the same TypeBox schemas fastify validates with. Route schemas carry `summary`,
// `description`, `tags` and `auth` ('bearer' | 'apiKey' | 'none') for this purpose.
import type { RouteOptions } from 'fastify';
import { ErrorEnvelope } from '../api/schemas.js';
import { VERSION } from '../version.js';
import { requiredScope } from './scopes.js';

export type RouteAuth = 'bearer' | 'apiKey' | 'none';

declare module 'fastify' {
  interface FastifySchema {
    summary?: string;
    description?: string;
    tags?: string[];
    /** How the route authenticates, for the document's `security`. */
    auth?: RouteAuth;
    /** Request content types other than JSON that the route accepts. */
    consumes?: string[];
    hide?: boolean;
  }
}

export interface RouteDoc {
  method: string;
  url: string;
  schema: Record<string, unknown>;
}

/** onRoute hook body: remember every documented route. */
export function collectRoute(routes: RouteDoc[], route: RouteOptions): void {
  if (!route.schema || (route.schema as { hide?: boolean }).hide) return;
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  for (const method of methods) {
    if (method === 'HEAD' || method === 'OPTIONS') continue;
    routes.push({ method, url: route.url, schema: route.schema as Record<string, unknown> });
  }
}

type JsonObject = Record<string, unknown>;

/** Plain JSON copy: drops TypeBox's symbol keys. */
function plain<T>(schema: T): T {
  return JSON.parse(JSON.stringify(schema)) as T;
}

export function generateOpenApi(routes: RouteDoc[], serverUrl: string): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  const errorSchema = plain(ErrorEnvelope);
  for (const route of [...routes].sort((a, b) => a.url.localeCompare(b.url) || a.method.localeCompare(b.method))) {
    const path = route.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const schema = route.schema;
    const auth = (schema.auth as RouteAuth | undefined) ?? 'none';
    const parameters: JsonObject[] = [];
    for (const [location, key] of [['path', 'params'], ['query', 'querystring']] as const) {
      const part = schema[key] as { properties?: Record<string, JsonObject>; required?: string[] } | undefined;
      for (const [name, property] of Object.entries(part?.properties ?? {})) {
        const { description, ...rest } = plain(property);
        parameters.push({
          name,
          in: location,
          required: location === 'path' || (part?.required ?? []).includes(name),
          ...(description ? { description } : {}),
          schema: rest,
        });
      }
    }
    const responses: JsonObject = {};
    for (const [status, responseSchema] of Object.entries((schema.response ?? {}) as Record<string, unknown>)) {
      const described = responseSchema as { description?: string };
      responses[status] = {
        description: described.description ?? (status.startsWith('2') ? 'success' : 'error'),
        content: { 'application/json': { schema: plain(responseSchema) } },
      };
    }
    for (const status of ['4XX', '5XX']) {
      responses[status] ??= { description: status === '4XX' ? 'rejected request' : 'server error', content: { 'application/json': { schema: errorSchema } } };
    }
    const bodyTypes = (schema.consumes as string[] | undefined) ?? ['application/json'];
    const operation: JsonObject = {
      operationId: `${route.method.toLowerCase()}${path.replace(/[{}]/g, '').split(/[/-]/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`,
      summary: schema.summary ?? `${route.method} ${path}`,
      ...(schema.description ? { description: schema.description } : {}),
      ...(schema.tags ? { tags: schema.tags } : {}),
      // The scope the operation requires (src/sandbox/scopes.ts), as OpenAPI 3.1 allows for any scheme.
      security: auth === 'none' ? [] : [{ [auth === 'bearer' ? 'bearerAuth' : 'apiKey']: [requiredScope(route.method, route.url)] }],
      ...(parameters.length ? { parameters } : {}),
      ...(schema.body
        ? { requestBody: { required: true, content: Object.fromEntries(bodyTypes.map((type) => [type, { schema: plain(schema.body) }])) } }
        : {}),
      responses,
    };
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Card Issuing Institution API (cardctl sandbox)',
      version: VERSION,
      description: 'The API as the cardctl sandbox implements it; where the reference is silent, the choices are the sandbox\'s own (see docs/ in the cardctl repository). '
        + 'Errors answer {statusCode, message, error, errors?, details?}.',
    },
    servers: [{ url: serverUrl }],
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http', scheme: 'bearer',
          description: 'seeded token, POST /sandbox/institutions, POST /sandbox/users, or POST /oauth/token. Each operation lists the one scope it '
            + 'requires; a token holds the scopes of its OAuth application, or the permissions of its user\'s roles; READ grants every read:* scope, '
            + 'WRITE every other verb, * everything. Missing the scope is a 403 FORBIDDEN with details.requiredScope.',
        },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'for POST /util/cards/import only' },
      },
    },
    paths,
  };
}
