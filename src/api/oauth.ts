// OAuth applications of the authenticated institution: list, create, update. Returns data, never prints.
import { CliError, RejectedError } from '../core/errors.js';
import type { ApiClient, ApiResponse } from './client.js';
import { paginate } from './paging.js';
import { LIST_PATHS, listQuery, type ListParams } from './dialect.js';
import type { CreateOAuthBody, OAuthApplication, UpdateOAuthBody } from './schemas.js';

export const OAUTH_APPLICATIONS_PATH = LIST_PATHS.oauth;

/** search, page, limit: named as the client's dialect has them when sent. */
export type ListOAuthQuery = ListParams<'oauth'>;

export function listOAuthApplications(client: ApiClient, query: ListOAuthQuery = {}, signal?: AbortSignal): Promise<ApiResponse<OAuthApplication[]>> {
  return client.request<OAuthApplication[]>({ method: 'GET', path: OAUTH_APPLICATIONS_PATH, query: listQuery(client.dialect, 'oauth', query), signal });
}

/** Every page of the list, as pages arrive, at the largest page size the deployment serves. */
export function allOAuthApplications(client: ApiClient, query: { search?: string } = {}, signal?: AbortSignal): AsyncIterableIterator<ApiResponse<OAuthApplication[]>> {
  return paginate<OAuthApplication>(client, OAUTH_APPLICATIONS_PATH, { search: query.search }, client.dialect.maxPageSize, signal);
}

/** Finds an application by its record id or its client id (`institutionId`). */
export async function findOAuthApplication(client: ApiClient, id: string, signal?: AbortSignal): Promise<OAuthApplication | undefined> {
  for await (const page of allOAuthApplications(client, {}, signal)) {
    const match = (page.data ?? []).find((app) => app.id === id || app._id === id || app.institutionId === id);
    if (match) return match;
  }
  return undefined;
}

/** The newest application with exactly this name (the create response carries only a message). */
export async function findOAuthApplicationByName(client: ApiClient, name: string, signal?: AbortSignal): Promise<OAuthApplication | undefined> {
  for await (const page of allOAuthApplications(client, { search: name }, signal)) {
    const match = (page.data ?? []).find((app) => app.name === name);
    if (match) return match;
  }
  return undefined;
}

export function createOAuthApplication(client: ApiClient, body: CreateOAuthBody): Promise<ApiResponse<unknown>> {
  return client.request({ method: 'POST', path: '/institutions/oauth/create', body });
}

/**
 * PUT /institutions/oauth/{id}. With `version` (the `updatedAt` of the application as read, whose
 * values fill the fields not given) it is sent with If-Match, so that a change someone else made
 * in between is a 409 instead of being overwritten unseen. After a 409 the application is read
 * again: when it already holds this body (an earlier attempt applied and its answer was lost),
 * that is the answer; otherwise a RejectedError (exit 5, code CONFLICT) says to run again.
 */
export async function updateOAuthApplication(
  client: ApiClient, id: string, body: UpdateOAuthBody, version?: string, signal?: AbortSignal,
): Promise<ApiResponse<OAuthApplication>> {
  const path = `/institutions/oauth/${encodeURIComponent(id)}`;
  if (version === undefined) return client.request<OAuthApplication>({ method: 'PUT', path, body, idempotent: true, signal });
  try {
    return await client.request<OAuthApplication>({ method: 'PUT', path, body, idempotent: true, signal, headers: { 'if-match': `"${version}"` } });
  } catch (error) {
    if (!(error instanceof CliError) || error.status !== 409) throw error;
    const current = await findOAuthApplication(client, id, signal).catch(() => undefined);
    if (current && current.name === body.name && (current.description ?? '') === body.description
      && JSON.stringify(current.scopes ?? []) === JSON.stringify(body.scopes)) {
      return { status: 200, data: current, raw: JSON.stringify({ statusCode: 200, message: 'updated', data: current }), headers: {}, durationMs: 0 };
    }
    throw new RejectedError(`OAuth application ${id} was changed by someone else after it was read; your change was not applied`, {
      code: 'CONFLICT',
      status: 409,
      details: error.details,
      hint: 'run the same command again: it reads the application anew and applies only the fields you give on top of the other change',
      cause: error,
    });
  }
}
