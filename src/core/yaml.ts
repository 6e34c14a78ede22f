// The one YAML loader. Every file a user gives as YAML or JSON (scenarios, dialect files, webhook
// rules, load mixes) is parsed here, within bounds: its size, how deep it nests, how many aliases
// it expands. A file outside them, or not YAML, is a usage error naming the file and the line.
import type * as Yaml from 'yaml';
import { UsageError } from './errors.js';

export const YAML_LIMITS = {
  /** Bytes of UTF-8: far beyond any hand-written file. */
  maxBytes: 1024 * 1024,
  /**
   * Levels of nesting, each column of indentation counted as one. The parser recurses once a
   * level; a few thousand levels end the process, not the parse.
   */
  maxDepth: 100,
  /** Alias expansions (`*name`): a few hundred keep a file readable; a billion laughs do not. */
  maxAliases: 100,
} as const;

/** A parsed file: its value, and the line of any node in it. */
export interface YamlFile {
  value: unknown;
  /** 1-based line of the node at `path` (keys and list indexes), when the file has it. */
  lineOf(path: ReadonlyArray<string | number>): number | undefined;
}

/** The yaml package through ESM/CJS interop: bundled, its functions may sit on `default`. */
async function yamlModule(): Promise<typeof Yaml> {
  const module = (await import('yaml')) as typeof Yaml & { default?: typeof Yaml };
  return typeof module.parse === 'function' ? module : module.default!;
}

/**
 * Parses a YAML (or JSON) file's text. `what` names the kind of file in messages: "invalid
 * scenario s.yaml (line 3): …". Duplicate keys are refused.
 */
export async function parseYamlFile(text: string, file: string, what: string): Promise<YamlFile> {
  const fail = (message: string, line?: number): never => {
    throw new UsageError(`invalid ${what} ${file}${line ? ` (line ${line})` : ''}: ${message}`);
  };
  const bytes = Buffer.byteLength(text);
  if (bytes > YAML_LIMITS.maxBytes) fail(`${bytes} bytes, more than the ${YAML_LIMITS.maxBytes} a file may hold`);
  const yaml = await yamlModule();
  const deep = tooDeepAt(yaml, text);
  if (deep !== undefined) fail(`nests more than ${YAML_LIMITS.maxDepth} levels deep`, deep);
  const lineCounter = new yaml.LineCounter();
  // The parser's own check of unique keys compares each key with every other: minutes for a
  // map of 100,000 keys. repeatedKey does it with a Map per map.
  const doc = yaml.parseDocument(text, { lineCounter, uniqueKeys: false, prettyErrors: false });
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!;
    fail(`not valid JSON or YAML (${firstLine(error.message)})`, lineCounter.linePos(error.pos[0]).line);
  }
  const repeated = repeatedKey(yaml, doc.contents);
  if (repeated) fail(`not valid JSON or YAML (Map keys must be unique: ${JSON.stringify(repeated.key)} is given twice)`, repeated.offset === undefined ? undefined : lineCounter.linePos(repeated.offset).line);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: YAML_LIMITS.maxAliases });
  } catch (error) {
    // yaml throws a ReferenceError for an alias bomb, and for an alias to nothing.
    fail(/alias count/i.test((error as Error).message) ? `expands more than ${YAML_LIMITS.maxAliases} aliases` : firstLine((error as Error).message));
  }
  return {
    value,
    lineOf(path) {
      const node = doc.getIn(path as Array<string | number>, true) as { range?: [number, number, number] } | undefined;
      return node?.range ? lineCounter.linePos(node.range[0]).line : undefined;
    },
  };
}

/** The first key given twice in one map (scalar keys, compared by value as the parser would). */
function repeatedKey(yaml: typeof Yaml, root: unknown): { key: unknown; offset?: number } | undefined {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (yaml.isMap(node)) {
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        if (yaml.isScalar(pair.key)) {
          if (seen.has(pair.key.value)) return { key: pair.key.value, offset: pair.key.range?.[0] };
          seen.add(pair.key.value);
        } else {
          stack.push(pair.key);
        }
        stack.push(pair.value);
      }
    } else if (yaml.isSeq(node)) {
      for (const item of node.items) stack.push(item);
    }
  }
  return undefined;
}

function firstLine(message: string): string {
  return message.split('\n')[0]!;
}

/**
 * The line where the text nests deeper than the limit, read from the lexer's tokens (which
 * keep quoted text whole): open flow brackets, plus the indentation and the `-`, `?` and `:`
 * indicators of the line. An upper bound of the depth the parser will reach; linear, and it
 * stops at the first line too deep.
 */
function tooDeepAt(yaml: typeof Yaml, text: string): number | undefined {
  let flow = 0;
  let line = 1;
  let indent = 0;
  let indicators = 0;
  /** Only indentation and block indicators so far on this line (`- - - x` nests three deep). */
  let lineHead = true;
  for (const token of new yaml.Lexer().lex(text)) {
    switch (token[0]) {
      case '[': case '{': flow++; lineHead = false; break;
      case ']': case '}': flow = Math.max(0, flow - 1); lineHead = false; break;
      case '\n': case '\r':
        line += countNewlines(token);
        indent = 0;
        indicators = 0;
        lineHead = true;
        continue;
      case '\x02': case '\x18': case '\x1f': continue; // the lexer's markers: document, flow error, scalar
      default: {
        const type = yaml.CST.tokenType(token);
        if (type === 'space' && lineHead && indicators === 0) indent = token.length;
        else if (type === 'space') continue;
        else if (lineHead && flow === 0 && (type === 'seq-item-ind' || type === 'explicit-key-ind' || type === 'map-value-ind')) indicators++;
        else {
          lineHead = false;
          line += countNewlines(token);
        }
      }
    }
    if (flow + indent + indicators > YAML_LIMITS.maxDepth) return line;
  }
  return undefined;
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** `value` as a YAML document (a file cardctl writes), no line folded. */
export async function stringifyYaml(value: unknown): Promise<string> {
  return (await yamlModule()).stringify(value, { lineWidth: 0 });
}
