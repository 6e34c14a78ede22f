// The tests' one loose type: JSON of every shape (API answers read by path in assertions, request
// bodies bent on purpose to be invalid). Where a schema type of src/api/schemas.ts fits, a test
// uses that instead; a test that relies on a shape asserts it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any JSON, read and edited freely by tests
export type AnyJson = any;

/** An HTTP answer's JSON as the type the test names (the server's own type, e.g. the listener's `Received`). */
export async function jsonOf<T>(response: { body: { json(): Promise<unknown> } }): Promise<T> {
  return (await response.body.json()) as T;
}

/** Any JSON value: for answers a test reads without a schema type (bodies bent on purpose, fuzzing). */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/**
 * `value`, or the test fails: for a field the schema marks optional (or an element `find` may miss)
 * that this test relies on being there.
 */
export function present<T>(value: T | null | undefined, what = 'the value'): T {
  if (value === undefined || value === null) throw new Error(`expected ${what} to be present, got ${String(value)}`);
  return value;
}
