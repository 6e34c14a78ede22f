// How OAuth applications look: list columns (`oauth list`) and the rows of one application.
import type { OAuthApplication } from '../../api/schemas.js';
import type { Style } from '../style.js';
import type { Column } from '../renderer.js';

type App = Partial<OAuthApplication>;

function flags(app: App, style?: Style): string {
  const parts: string[] = [];
  if (app.isVerified) parts.push(style ? style.ok('verified') : 'verified');
  if (app.isOfficial) parts.push('official');
  return parts.join(',');
}

export const oauthColumns: Column<App>[] = [
  { header: 'NAME', path: 'name' },
  { header: 'CLIENT ID', path: 'institutionId' },
  { header: 'GRANT TYPE', path: 'grantType' },
  { header: 'SCOPES', path: 'scopes' },
  { header: 'VERIFIED/OFFICIAL', path: 'isVerified', format: (_v, app, style) => flags(app, style), csv: (_v, app) => flags(app) },
  { header: 'CREATED', path: 'createdAt' },
  { header: 'ID', path: 'id', wide: true },
  { header: 'SUBJECT', path: 'subject', wide: true },
  { header: 'DESCRIPTION', path: 'description', wide: true },
];

export const oauthRows: Column<App>[] = [
  { header: 'Name', path: 'name' },
  { header: 'Client ID', path: 'institutionId' },
  { header: 'ID', path: 'id' },
  { header: 'Description', path: 'description' },
  { header: 'Grant type', path: 'grantType' },
  { header: 'Scopes', path: 'scopes' },
  { header: 'Redirect URIs', path: 'redirectUri' },
  { header: 'Subject', path: 'subject' },
  { header: 'Verified', path: 'isVerified' },
  { header: 'Official', path: 'isOfficial' },
  { header: 'Created', path: 'createdAt' },
  { header: 'Updated', path: 'updatedAt' },
];
