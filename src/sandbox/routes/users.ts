// PUT /institutions/users/{institutionUserId}/update: a user of the caller's institution.
import type { FastifyInstance } from 'fastify';
import { Envelope, InstitutionUser, UpdateUserBody, UserIdParams } from '../../api/schemas.js';
import { principalOf, requireBearer } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { notFound } from '../errors.js';
import { envelope } from './common.js';

export async function userRoutes(app: FastifyInstance, deps: SandboxDeps): Promise<void> {
  const { store, clock } = deps;
  app.put<{ Params: { institutionUserId: string }; Body: UpdateUserBody }>('/institutions/users/:institutionUserId/update', {
    onRequest: requireBearer(deps),
    schema: {
      summary: 'Update Institution User', tags: ['users'], auth: 'bearer',
      description: 'Replaces the user\'s details, status, blocked flag and roles (with permissions). Answers the updated user.',
      params: UserIdParams, body: UpdateUserBody, response: { 200: Envelope(InstitutionUser) },
    },
  }, async (request) => {
    const { institutionId } = principalOf(request);
    const body = request.body;
    const user = store.transaction(() => {
      const current = store.institutions.getUser(institutionId, request.params.institutionUserId);
      if (!current) throw notFound(`institution user ${request.params.institutionUserId}`);
      const next: InstitutionUser = {
        ...current,
        firstName: body.firstName,
        lastName: body.lastName,
        emailAddress: body.emailAddress,
        phoneNumber: body.phoneNumber,
        status: body.status,
        isBlocked: body.isBlocked,
        roles: body.roles.map((role) => ({ role: role.role, permissions: [...role.permissions] })),
        embossingName: body.embossingName ?? current.embossingName,
        startDate: body.startDate ?? current.startDate,
        expiryDate: body.expiryDate ?? current.expiryDate,
        printCard: body.printCard ?? current.printCard,
        updatedAt: clock.now().toISOString(),
      };
      store.institutions.updateUser(next);
      return next;
    });
    return envelope('Institution user updated successfully', user);
  });
}
