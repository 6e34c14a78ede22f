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
