// The inspector page's files, as text. esbuild's text loader puts them into the bundle (the
// import attribute), so the built CLI serves them from its own chunk and the package needs no
// other file; under vitest a plugin in vitest.config.ts does the same for these files.
import page from './index.html' with { type: 'text' };
import script from './client.js' with { type: 'text' };
import style from './inspector.css' with { type: 'text' };

export const INSPECTOR_PAGE: string = page;

export interface InspectorAsset {
  name: string;
  type: string;
  text: string;
}

export const INSPECTOR_ASSETS: readonly InspectorAsset[] = [
  { name: 'inspector.css', type: 'text/css; charset=utf-8', text: style },
  { name: 'client.js', type: 'text/javascript; charset=utf-8', text: script },
];
