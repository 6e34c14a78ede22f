// POST /institutions/{switch}/simulate. Until the switch module lands this answers 501 in the
// error envelope; the switch issue replaces this file, keeping the export: a fastify plugin
// `simulateRoutes(app, deps: SandboxDeps)`.
import type { FastifyInstance } from 'fastify';
import { SimulateBody, SimulateEnvelope, SwitchParams } from '../../api/schemas.js';
import { requireBearer } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { ApiError } from '../errors.js';

export async function simulateRoutes(app: FastifyInstance, deps: SandboxDeps): Promise<void> {
  app.post('/institutions/:switch/simulate', {
    onRequest: requireBearer(deps),
    schema: {
      summary: 'Simulate Switch Transaction', tags: ['simulate'], auth: 'bearer',
      description: 'Sandbox only. Not available yet: answers 501 NOT_IMPLEMENTED until the switch module lands.',
      params: SwitchParams,
      body: SimulateBody,
      response: { 200: SimulateEnvelope },
    },
  }, async () => {
    throw new ApiError(501, 'NOT_IMPLEMENTED', 'switch simulation is not available yet in this sandbox: it lands with the switch module');
  });
}
