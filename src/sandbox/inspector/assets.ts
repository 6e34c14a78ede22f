// The inspector page's files, as text. esbuild's text loader puts them into the bundle (the
// import attribute), so the built CLI serves them from its own chunk and the package needs no
// other file; under vitest a plugin in vitest.config.ts does the same for these files.
import page from './index.html' with { type: 'text' };
import script from './client.js' with { type: 'text' };
import style from './inspector.css' with { type: 'text' };
import { APPROVED_CODES } from '../../iso8583/codes.js';

/**
 * The page, with the approved response codes (isApproved's, src/iso8583/codes.ts) in its body's
 * `data-approved-codes`: its script marks codes approved or failed by that list, not one of its own.
 */
export const INSPECTOR_PAGE: string = withApprovedCodes(page);

function withApprovedCodes(html: string): string {
  const slot = 'data-approved-codes=""';
  if (!html.includes(slot)) throw new Error(`the inspector page has no ${slot}`);
  return html.replace(slot, `data-approved-codes="${[...APPROVED_CODES].join(' ')}"`);
}

export interface InspectorAsset {
  name: string;
  type: string;
  text: string;
}

export const INSPECTOR_ASSETS: readonly InspectorAsset[] = [
  { name: 'inspector.css', type: 'text/css; charset=utf-8', text: style },
  { name: 'client.js', type: 'text/javascript; charset=utf-8', text: script },
];
