// What the built-in jq can hold: jq.ts refuses more, and `cardctl help output` says so. Apart from
// jq.ts so that the help does not load jq's runner to print two numbers.

/** jq-wasm's memory, which it cannot grow past (its Emscripten heap maximum). */
export const JQ_MEMORY = '256 MB';

/**
 * The most JSON, in bytes, that jq is given. jq holds a parsed value in about six times its text:
 * 41 MB of transactions ran it out of memory, 33.5 MB did not, for `.`, `sort_by(…)` and
 * `map(…) | add` alike. Past this, a run is refused before it starts, and `--all` stops reading
 * pages, rather than jq aborting once every page has been fetched.
 */
export const JQ_MOST_INPUT = 32 * 1024 * 1024;
