// The package version: injected by esbuild at build time; read from package.json when the
// sources run unbundled (vitest).
import { createRequire } from 'node:module';

declare const __CARDCTL_VERSION__: string | undefined;

export const VERSION: string =
  typeof __CARDCTL_VERSION__ === 'string'
    ? __CARDCTL_VERSION__
    : (createRequire(import.meta.url)('../package.json') as { version: string }).version;
