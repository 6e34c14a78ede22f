// The one check that a parsed JSON or YAML value is an object with members: not null, not an array.

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
