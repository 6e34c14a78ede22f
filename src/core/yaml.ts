// The yaml package through ESM/CJS interop: bundled, its functions may sit on `default`.
import type * as Yaml from 'yaml';

export async function loadYaml(): Promise<typeof Yaml> {
  const module = (await import('yaml')) as typeof Yaml & { default?: typeof Yaml };
  return typeof module.parse === 'function' ? module : module.default!;
}
