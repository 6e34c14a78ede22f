// Users of an institution: updating one, and (a sandbox helper) adding one with credentials.
// No caller hands out a permission it does not hold.
import type { InstitutionUser, SandboxUserCredentials, SandboxUserInput, UpdateUserBody } from '../../api/schemas.js';
import { assertCanGrant, type Principal } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { notFound } from '../errors.js';
import { scopesOfUser } from '../scopes.js';
import { addUser } from '../tenancy.js';

export function userService({ store, clock }: Pick<SandboxDeps, 'store' | 'clock'>) {
  return {
    /** Replaces the user's details, status, blocked flag and roles. */
    update(principal: Principal, userId: string, body: UpdateUserBody): InstitutionUser {
      return store.transaction(() => {
        const current = store.institutions.getUser(principal.institutionId, userId);
        if (!current) throw notFound(`institution user ${userId}`);
        assertCanGrant(principal, scopesOfUser(current), 'change a user who has it');
        assertCanGrant(principal, scopesOfUser(body), 'give it to a user');
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
    },

    /** A new user of the caller's institution, with its own token and API key (roles default to none). */
    create(principal: Principal, input: SandboxUserInput): SandboxUserCredentials {
      const roles = input.roles ?? [];
      assertCanGrant(principal, scopesOfUser({ roles }), 'give it to a user');
      return store.transaction(() => addUser(store, clock.now(), {
        institutionId: principal.institutionId, firstName: input.firstName, lastName: input.lastName, roles,
      }));
    },
  };
}
