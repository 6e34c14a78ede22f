// GET /openapi.json: the API as this sandbox serves it.
import type { FastifyInstance } from 'fastify';
import type { SandboxDeps } from '../deps.js';
import { generateOpenApi, type RouteDoc } from '../openapi.js';

export async function openapiRoutes(app: FastifyInstance, options: { routes: RouteDoc[]; deps: SandboxDeps }): Promise<void> {
  let document: string | undefined;
  app.get('/openapi.json', async (_request, reply) => {
    // Routes are all registered before the first request; generate once.
    document ??= JSON.stringify(generateOpenApi(options.routes, options.deps.baseUrl()));
    return reply.type('application/json').send(document);
  });
}
