// Plain data both sides read: the sandbox validates list queries with it (src/api/schemas.ts)
// and the CLI's paging flags refuse what the sandbox would (src/core/validate.ts). Kept apart
// from api/schemas.ts so the CLI does not load TypeBox to know a number.

/**
 * The bounds of every list's query parameters, declared once: the sandbox validates with them,
 * publishes them in /openapi.json and names the parameter in its 400. (maxPage - 1) × maxLimit
 * stays far inside SQLite's 64-bit OFFSET and JavaScript's exact integers; no stored id, name or
 * search text is longer than maxText.
 */
export const LIST_BOUNDS = { maxPage: 1_000_000, maxLimit: 100, maxText: 256 } as const;
