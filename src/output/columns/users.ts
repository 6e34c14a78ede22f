// How an institution user looks (`users update`).
import type { InstitutionUser } from '../../api/schemas.js';
import type { Column } from '../renderer.js';

type User = Partial<InstitutionUser>;

function rolesText(value: unknown): string {
  if (!Array.isArray(value)) return '';
  return value
    .map((r: { role?: string; permissions?: string[] }) => `${r.role ?? '?'}=${(r.permissions ?? []).join(',')}`)
    .join(' ');
}

export const userRows: Column<User>[] = [
  { header: 'ID', path: 'id' },
  { header: 'First name', path: 'firstName' },
  { header: 'Last name', path: 'lastName' },
  { header: 'Email', path: 'emailAddress' },
  { header: 'Phone', path: 'phoneNumber' },
  { header: 'Status', path: 'status', status: true },
  { header: 'Blocked', path: 'isBlocked' },
  { header: 'Roles', path: 'roles', format: (v) => rolesText(v), csv: (v) => rolesText(v) },
  { header: 'Embossing name', path: 'embossingName' },
  { header: 'Start date', path: 'startDate' },
  { header: 'Expiry date', path: 'expiryDate' },
  { header: 'Print card', path: 'printCard' },
  { header: 'Updated', path: 'updatedAt' },
];
