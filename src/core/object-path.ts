// Dot paths (`customer.address.city`) into plain objects: the columns and --fields read them,
// the flag and file readers of card fields, the dialect and the sandbox's error details write them.
/** Reads a dot path (`customer.address.city`) from a record. */
export function getPath(record: unknown, path: string): unknown {
  if (path === '') return record;
  let value: unknown = record;
  for (const key of path.split('.')) {
    if (value === null || value === undefined || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * Writes a dot path into a plain object, creating intermediate objects. Any object: the path is
 * checked by the caller (a flag's declared body path, a dialect key), not by the type.
 */
export function setPath(target: object, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next: unknown = Reflect.get(node, key);
    if (typeof next === 'object' && next !== null) {
      node = next;
    } else {
      const created = {};
      Reflect.set(node, key, created);
      node = created;
    }
  }
  Reflect.set(node, keys[keys.length - 1]!, value);
}
