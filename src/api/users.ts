// Institution users. Returns data, never prints.
import type { ApiClient, ApiResponse } from './client.js';
import type { InstitutionUser, UpdateUserBody } from './schemas.js';

export function updateInstitutionUser(client: ApiClient, userId: string, body: UpdateUserBody): Promise<ApiResponse<InstitutionUser>> {
  return client.request<InstitutionUser>({
    method: 'PUT',
    path: `/institutions/users/${encodeURIComponent(userId)}/update`,
    body,
    idempotent: true,
  });
}
