// Colours, decided once per context. 16-colour ANSI codes, as chalk wrote them at level 1, by
// a few lines of our own: importing chalk (and the colour detection it runs) cost 9 ms of every
// command on Node 20 and 13 ms on Node 24 (BENCHMARKS.md, "Node's floor"), for no feature
// cardctl used. test/unit/style.test.ts holds the output byte for byte to chalk's.

/** SGR codes [open, close] of every style cardctl paints with. */
const CODES = {
  red: [31, 39], green: [32, 39], yellow: [33, 39], blue: [34, 39], magenta: [35, 39], cyan: [36, 39],
  white: [37, 39], gray: [90, 39], bgRed: [41, 49], bold: [1, 22], dim: [2, 22],
} as const satisfies Record<string, readonly [number, number]>;

export type StyleName = keyof typeof CODES;
export const STYLE_NAMES = Object.keys(CODES) as StyleName[];

export interface Style {
  readonly enabled: boolean;
  /** `text` in the styles named, outermost first (plain when colour is off). */
  paint(names: StyleName | readonly StyleName[], text: string): string;
  ok(text: string): string;
  warn(text: string): string;
  error(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
  /** Colours a card or transaction status by what it means. */
  status(text: string): string;
  /** ✓ / ✗ marks (plain ASCII when colour is off is not needed: UTF-8 is fine in pipes). */
  check(ok: boolean): string;
}

const GOOD = new Set(['active', 'completed', 'approved', 'success', 'ok', '00', 'pass', 'passed']);
const BAD = new Set(['suspended', 'failed', 'declined', 'blocked', 'fail', 'error', 'expired']);
const NEUTRAL = new Set(['inactive', 'pending', 'reversed']);

/**
 * `text` in the styles named, outermost first, as chalk chains them: where the text already
 * closes one of these styles (a nested style of the same kind), it is opened again; a line break
 * closes them all before it and opens them again after it.
 */
function wrap(names: readonly StyleName[], text: string): string {
  const codes = names.map((name) => CODES[name]);
  const on = codes.map(([open]) => `\x1b[${open}m`).join('');
  const off = codes.map(([, close]) => `\x1b[${close}m`).reverse().join('');
  let body = text;
  for (const [open, close] of [...codes].reverse()) body = body.replaceAll(`\x1b[${close}m`, `\x1b[${close}m\x1b[${open}m`);
  body = body.replace(/\r?\n/g, (newline) => `${off}${newline}${on}`);
  return `${on}${body}${off}`;
}

export function createStyle(enabled: boolean): Style {
  const paint = (names: StyleName | readonly StyleName[], text: string): string => {
    if (!enabled || text === '') return text;
    return wrap(typeof names === 'string' ? [names] : names, text);
  };
  return {
    enabled,
    paint,
    ok: (t) => paint('green', t),
    warn: (t) => paint('yellow', t),
    error: (t) => paint('red', t),
    dim: (t) => paint('dim', t),
    bold: (t) => paint('bold', t),
    status(text) {
      const key = text.toLowerCase();
      if (GOOD.has(key)) return paint('green', text);
      if (BAD.has(key)) return paint('red', text);
      if (NEUTRAL.has(key)) return paint('yellow', text);
      return text;
    },
    check: (ok) => (ok ? paint('green', '✓') : paint('red', '✗')),
  };
}
