// `cardctl --version` (the version alone, for scripts) and `cardctl --version --verbose`
// (also Node and the platform, for bug reports). Answered before the command tree is built.
import { VERSION } from '../version.js';

const VERSION_FLAGS = new Set(['--version', '-V']);
const VERBOSE_FLAGS = new Set(['--verbose', '-v']);

/**
 * 'plain' for `--version` or `cardctl version` (gh's habit), 'verbose' for either with
 * `--verbose` (either order), else undefined.
 */
export function versionRequest(argv: readonly string[]): 'plain' | 'verbose' | undefined {
  const isVersion = (arg: string, at: number) => VERSION_FLAGS.has(arg) || (at === 0 && arg === 'version');
  if (argv.length === 1 && isVersion(argv[0]!, 0)) return 'plain';
  if (argv.length === 2 && argv.some(isVersion) && argv.some((a) => VERBOSE_FLAGS.has(a))) return 'verbose';
  return undefined;
}

export function versionText(kind: 'plain' | 'verbose', runtime: { node: string; platform: string; arch: string }): string {
  if (kind === 'plain') return `${VERSION}\n`;
  return `cardctl ${VERSION}\nnode ${runtime.node}\nplatform ${runtime.platform}-${runtime.arch}\n`;
}
