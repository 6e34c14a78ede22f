// /institutions/oauth: list, create and update the institution's OAuth applications.
import { X509Certificate } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import {
  CreateOAuthBody, Envelope, type Institution, ListEnvelope, ListOAuthQuery, OAuthApplication, OAuthApplicationParams, UpdateOAuthBody,
} from '../../api/schemas.js';
import type { Static } from '@sinclair/typebox';
import { assertCanGrant, principalOf, requireBearer } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { invalidField, notFound } from '../errors.js';
import { newId, opaque } from '../ids.js';
import { assertIfMatch, envelope, pagination, paging } from './common.js';

const tags = ['oauth'];

export async function oauthApplicationRoutes(app: FastifyInstance, deps: SandboxDeps): Promise<void> {
  const { store, clock } = deps;
  const auth = requireBearer(deps);

  app.get<{ Querystring: Static<typeof ListOAuthQuery> }>('/institutions/oauth/applications', {
    onRequest: auth,
    schema: {
      summary: 'List OAuth Applications', tags, auth: 'bearer',
      description: 'Newest first; `search` matches name, description, client id and certificate subject. `institution` is expanded.',
      querystring: ListOAuthQuery, response: { 200: ListEnvelope(OAuthApplication) },
    },
  }, async (request) => {
    const { institutionId } = principalOf(request);
    const { page, limit, offset } = paging(request.query);
    const { applications, total } = store.oauthApplications.list({ institutionId, search: request.query.search, limit, offset });
    const institution = store.institutions.get(institutionId) as Institution;
    return {
      ...envelope('OAuth applications retrieved successfully', applications.map((application) => ({ ...application, institution }))),
      pagination: pagination(page, limit, total),
    };
  });

  app.post<{ Body: CreateOAuthBody }>('/institutions/oauth/create', {
    onRequest: auth,
    schema: {
      summary: 'Create OAuth Application', tags, auth: 'bearer',
      description: '`publicKey` is the application\'s PEM certificate; its subject is recorded and its key verifies client assertions at POST /oauth/token. '
        + 'The generated client id is `institutionId`. `redirectUri` is required for authorization_code. The sandbox also returns the application in `data`. '
        + 'The caller must hold every scope it gives the application (else 403 naming one).',
      body: CreateOAuthBody, response: { 201: Envelope(OAuthApplication) },
    },
  }, async (request, reply) => {
    const principal = principalOf(request);
    const { institutionId, userId } = principal;
    const body = request.body;
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
    return reply.code(201).send(envelope('OAuth application created successfully', application));
  });

  app.put<{ Params: { institutionId: string }; Body: UpdateOAuthBody }>('/institutions/oauth/:institutionId', {
    onRequest: auth,
    schema: {
      summary: 'Update OAuth Application', tags, auth: 'bearer',
      description: 'The path parameter takes the application\'s `id` or its client id (`institutionId`). '
        + 'With `If-Match: "<updatedAt>"` (as read) the change applies only to that version: an application changed since is a 409 CONFLICT '
        + '(details.version: the current updatedAt), and nothing is written. The caller must hold every scope the '
        + 'application has and every scope it is given (else 403 naming one); its tokens have the new scopes from their next request.',
      params: OAuthApplicationParams, body: UpdateOAuthBody, response: { 200: Envelope(OAuthApplication) },
    },
  }, async (request) => {
    const principal = principalOf(request);
    const application = store.transaction(() => {
      const stored = store.oauthApplications.get(principal.institutionId, request.params.institutionId);
      if (!stored) throw notFound(`OAuth application ${request.params.institutionId}`);
      const current = stored.application;
      assertIfMatch(`OAuth application ${current.id}`, current.updatedAt, request.headers['if-match']);
      assertCanGrant(principal, current.scopes, 'change an application that has it');
      assertCanGrant(principal, request.body.scopes, 'give it to an application');
      const next: OAuthApplication = {
        ...current,
        name: request.body.name,
        description: request.body.description,
        scopes: request.body.scopes,
        // updatedAt is the version If-Match names: it moves on with every change, even two in one millisecond.
        updatedAt: new Date(Math.max(clock.now().getTime(), Date.parse(current.updatedAt) + 1)).toISOString(),
      };
      // websiteUrl is not a field of the application record in the reference; it is accepted and not shown.
      store.oauthApplications.update(next);
      return next;
    });
    return envelope('OAuth application updated successfully', application);
  });
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
