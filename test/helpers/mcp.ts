// What the MCP tests call secret-like: an input property whose name says it would carry a secret
// or a card number. A switch (boolean) carries no value; the few names that match but hold no
// secret are listed with why.
/** Token, password, PIN (not "ping"), key, secret, credential, a card number. */
export const SECRET_LIKE = /secret|token|passw|credential|pin(?!g)|key|^pan$|card.?number/i;

const NOT_SECRET: Record<string, string> = {
  publicKey: "an OAuth application's public key, public by definition",
  pinsFromColumn: "the name of a column of the caller's file; the PINs are read and encrypted on this machine",
};

/** `tool.property` for each property of a tool's input schema that is secret-like. */
export function secretLikeProperties(tool: string, properties: Record<string, unknown>): string[] {
  return Object.entries(properties)
    .filter(([name, schema]) => SECRET_LIKE.test(name) && !(name in NOT_SECRET) && !isSwitch(schema))
    .map(([name]) => `${tool}.${name}`);
}

function isSwitch(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && 'type' in schema && schema.type === 'boolean';
}

/** A tool result as `cardctl mcp` answers: text parts only. */
export interface ToolAnswer {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

/** The first line of the untrusted part of a result (src/mcp/result.ts UNTRUSTED_NOTICE). */
const UNTRUSTED_START = 'UNTRUSTED DATA:';

/** The texts of a result's parts. */
export function parts(result: ToolAnswer): string[] {
  return result.content.map((part) => part.text ?? '');
}

/** The JSON data of a result: its first part that is JSON (after an error's lines). */
export function data(result: ToolAnswer): unknown {
  for (const text of parts(result)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // the lines of an error, a note
    }
  }
  return undefined;
}

/** The untrusted part: mark → text (empty when there is none). */
export function untrusted(result: ToolAnswer): Record<string, string> {
  const part = parts(result).find((text) => text.startsWith(UNTRUSTED_START));
  return part ? JSON.parse(part.slice(part.indexOf('\n') + 1)) as Record<string, string> : {};
}

/** The data with each mark replaced by the text it stands for: what the command printed. */
export function resolved(result: ToolAnswer): unknown {
  const marks = untrusted(result);
  const resolve = (value: unknown): unknown => {
    if (typeof value === 'string') return marks[value] ?? value;
    if (Array.isArray(value)) return value.map(resolve);
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
    return value;
  };
  return resolve(data(result));
}

/** The bytes of a result's parts together. */
export function resultBytes(result: ToolAnswer): number {
  return parts(result).reduce((sum, text) => sum + Buffer.byteLength(text), 0);
}
