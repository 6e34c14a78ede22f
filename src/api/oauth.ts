// OAuth applications of the authenticated institution: list, create, update. Returns data, never prints.
import { paginate, type ApiClient, type ApiResponse } from './client.js';
import type { CreateOAuthBody, OAuthApplication, UpdateOAuthBody } from './schemas.js';

export const OAUTH_APPLICATIONS_PATH = '/institutions/oauth/applications';

export interface ListOAuthQuery {
  search?: string;
  page?: number;
  limit?: number;
}

export function listOAuthApplications(client: ApiClient, query: ListOAuthQuery = {}, signal?: AbortSignal): Promise<ApiResponse<OAuthApplication[]>> {
  return client.request<OAuthApplication[]>({
    method: 'GET',
    path: OAUTH_APPLICATIONS_PATH,
    query: { search: query.search, page: query.page, limit: query.limit },
    signal,
  });
}

/** Every page of the list, as pages arrive. */
export function allOAuthApplications(client: ApiClient, query: { search?: string } = {}, signal?: AbortSignal): AsyncGenerator<ApiResponse<OAuthApplication[]>> {
  return paginate<OAuthApplication>(client, OAUTH_APPLICATIONS_PATH, { search: query.search }, 100, signal);
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

export function updateOAuthApplication(client: ApiClient, id: string, body: UpdateOAuthBody): Promise<ApiResponse<OAuthApplication>> {
  return client.request<OAuthApplication>({ method: 'PUT', path: `/institutions/oauth/${encodeURIComponent(id)}`, body, idempotent: true });
}
