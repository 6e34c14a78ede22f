// OAuth applications of an institution (list, create, update) and the client-credentials grant
// that issues their tokens (RFC 7523 private_key_jwt client assertions). No caller gives an
// application a scope it does not hold; an assertion is used once.
import { X509Certificate } from 'node:crypto';
import type {
  CreateOAuthBody, Institution, OAuthApplication, TokenRequest, TokenResponse, UpdateOAuthBody,
} from '../../api/schemas.js';
import { assertCanGrant, type Principal } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { DomainError, invalidField, notFound, unauthenticated } from '../errors.js';
import { hashSecret, newId, newSecret, opaque } from '../ids.js';
import { assertIfMatch } from '../versions.js';

export const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Assertions may live at most this long (seconds), plus a little clock skew. */
const MAX_ASSERTION_LIFETIME = 300;
const CLOCK_SKEW = 30;

export function oauthApplicationService({ store, clock, settings }: Pick<SandboxDeps, 'store' | 'clock' | 'settings'>) {
  return {
    /** One page, newest first, each application with its institution expanded. */
    list(query: { institutionId: string; search?: string; limit: number; offset: number }): { applications: OAuthApplication[]; total: number } {
      const { applications, total } = store.oauthApplications.list(query);
      const institution = store.institutions.get(query.institutionId) as Institution;
      return { applications: applications.map((application) => ({ ...application, institution })), total };
    },

    create(principal: Principal, body: CreateOAuthBody): OAuthApplication {
      const { institutionId, userId } = principal;
      assertCanGrant(principal, body.scopes, 'give it to an application');
      const certificate = parseCertificate(body.publicKey);
      if (body.grantType === 'authorization_code' && !(body.redirectUri?.length)) {
        throw invalidField('redirectUri', 'is required when grantType is authorization_code');
      }
      const now = clock.now();
      const id = newId(now.getTime());
      const application: OAuthApplication = {
        _id: id,
        id,
        institution: institutionId,
        name: body.name,
        description: body.description ?? '',
        redirectUri: body.redirectUri ?? [],
        isVerified: false,
        isOfficial: body.isOfficial ?? false,
        isDeleted: false,
        institutionId: `cli_${opaque(12)}`,
        subject: certificate.subject,
        scopes: body.scopes,
        grantType: body.grantType,
        createdBy: userId ?? institutionId,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      };
      store.transaction(() => store.oauthApplications.insert({ application, certificate: certificate.toString() }));
      return application;
    },

    /** `idOrClientId`: the application's id or its client id; `ifMatch`: the If-Match header (its updatedAt as read). */
    update(principal: Principal, idOrClientId: string, body: UpdateOAuthBody, ifMatch: string | string[] | undefined): OAuthApplication {
      return store.transaction(() => {
        const stored = store.oauthApplications.get(principal.institutionId, idOrClientId);
        if (!stored) throw notFound(`OAuth application ${idOrClientId}`);
        const current = stored.application;
        assertIfMatch(`OAuth application ${current.id}`, current.updatedAt, ifMatch);
        assertCanGrant(principal, current.scopes, 'change an application that has it');
        assertCanGrant(principal, body.scopes, 'give it to an application');
        const next: OAuthApplication = {
          ...current,
          name: body.name,
          description: body.description,
          scopes: body.scopes,
          // updatedAt is the version If-Match names: it moves on with every change, even two in one millisecond.
          updatedAt: new Date(Math.max(clock.now().getTime(), Date.parse(current.updatedAt) + 1)).toISOString(),
        };
        // websiteUrl is not a field of the application record in the reference; it is accepted and not shown.
        store.oauthApplications.update(next);
        return next;
      });
    },

    /**
     * A token for the application whose signed assertion this is. `audiences`: the token
     * endpoint's URLs the assertion may name (as the server listens, and as the caller reached it).
     */
    async issueToken(body: TokenRequest, audiences: string[]): Promise<TokenResponse> {
      if (body.grant_type !== 'client_credentials') {
        throw new DomainError('invalid', `grant_type "${body.grant_type}" is not supported; use client_credentials`, [{ field: 'grant_type', message: 'must be client_credentials' }]);
      }
      if (body.client_assertion_type !== ASSERTION_TYPE) {
        throw new DomainError('invalid', `client_assertion_type must be ${ASSERTION_TYPE}`, [{ field: 'client_assertion_type', message: `must be ${ASSERTION_TYPE}` }]);
      }
      const stored = store.oauthApplications.findByClientId(body.client_id);
      if (!stored || stored.application.isDeleted) throw unauthenticated('unknown client_id');
      const { application } = stored;
      if (application.grantType !== 'client_credentials') {
        throw unauthenticated(`application ${body.client_id} has grantType ${application.grantType}, not client_credentials`);
      }

      const { importX509, jwtVerify } = await import('jose');
      const key = await importX509(stored.certificate, 'RS256');
      const now = clock.now();
      const nowSeconds = Math.floor(now.getTime() / 1000);
      let payload: { jti?: string; exp?: number };
      try {
        ({ payload } = await jwtVerify(body.client_assertion, key, {
          algorithms: ['RS256'],
          issuer: body.client_id,
          subject: body.client_id,
          audience: audiences,
          requiredClaims: ['exp', 'jti'],
          currentDate: now,
          clockTolerance: CLOCK_SKEW,
        }));
      } catch (error) {
        throw unauthenticated(`client_assertion rejected: ${(error as Error).message}`);
      }
      if (payload.exp! > nowSeconds + MAX_ASSERTION_LIFETIME + CLOCK_SKEW) {
        throw unauthenticated(`client_assertion expires too far ahead: exp must be at most ${MAX_ASSERTION_LIFETIME} s from now`);
      }
      const ttl = settings.tokenTtlSeconds;
      const token = newSecret('sbx_oat');
      const scope = application.scopes.join(' ');
      store.transaction(() => {
        if (!store.oauthApplications.useAssertion(body.client_id, payload.jti!, payload.exp! * 1000, now.getTime())) {
          throw unauthenticated('client_assertion was already used (jti replay); sign a new one for every request');
        }
        store.credentials.removeExpired(now.getTime());
        store.credentials.insert({
          secretHash: hashSecret(token),
          kind: 'token',
          institutionId: application.institution as string,
          userId: null,
          applicationId: application.id,
          scope,
          expiresAt: now.getTime() + ttl * 1000,
        });
      });
      return { access_token: token, token_type: 'Bearer', expires_in: ttl, scope };
    },
  };
}

function parseCertificate(pem: string): X509Certificate {
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) {
    throw invalidField('publicKey', 'must be a PEM certificate (-----BEGIN CERTIFICATE-----); `cardctl oauth keygen` makes one');
  }
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch {
    throw invalidField('publicKey', 'is not a readable X.509 certificate');
  }
  if (certificate.publicKey.asymmetricKeyType !== 'rsa') throw invalidField('publicKey', 'must hold an RSA public key (client assertions are RS256)');
  return certificate;
}
