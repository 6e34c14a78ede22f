// JSON in the tests: answers are read as the schema types of src/api/schemas.ts (call<T> in
// test/sandbox/helpers.ts names them); what has no schema type is `Json`, and request bodies made
// invalid on purpose are bent with `without`/`withValue`. A field the test relies on but the
// type marks optional goes through `present`.

/** An HTTP answer's JSON as the type the test names (the server's own type, e.g. the listener's `Received`). */
export async function jsonOf<T>(response: { body: { json(): Promise<unknown> } }): Promise<T> {
  return (await response.body.json()) as T;
}

/** Any JSON value: for answers a test reads without a schema type (bodies bent on purpose, fuzzing). */
export type Json = string | number | boolean | null | Json[] | JsonObject;
export type JsonObject = { [key: string]: Json };

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A copy of `body` with the member at `path` ('customer.emailAddress') set to `value`, or removed. */
function bent(body: object, path: string, value: Json | undefined): JsonObject {
  const copy: unknown = structuredClone(body);
  if (!isJsonObject(copy)) throw new Error('expected a JSON object to bend');
  const keys = path.split('.');
  const last = keys.pop() ?? path;
  let parent = copy;
  for (const key of keys) {
    const next = parent[key];
    if (!isJsonObject(next)) throw new Error(`${path}: no object at ${key}`);
    parent = next;
  }
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return copy;
}

/** A request body made invalid on purpose: `path` removed. */
export const without = (path: string) => (body: object): JsonObject => bent(body, path, undefined);
/** A request body made invalid on purpose: `path` set to `value` (of the wrong type, or a member not allowed). */
export const withValue = (path: string, value: Json) => (body: object): JsonObject => bent(body, path, value);

/**
 * `value`, or the test fails: for a field the schema marks optional (or an element `find` may miss)
 * that this test relies on being there.
 */
export function present<T>(value: T | null | undefined, what = 'the value'): T {
  if (value === undefined || value === null) throw new Error(`expected ${what} to be present, got ${String(value)}`);
  return value;
}
