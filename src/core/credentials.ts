// Every credential cardctl sends (bearer token, API key), wherever it comes from (environment,
// stdin, the profile, a token endpoint), is checked here before it goes into a header: printable
// ASCII without spaces. A pasted line break, a tab or a curly quote would otherwise become a
// network error ("invalid authorization header") or a header the server reads differently.
// Messages name the source, never the value.
import { AuthError } from './errors.js';

/** What is wrong with `value` as a credential, or undefined when it is fine. */
export function credentialProblem(value: string): string | undefined {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0x21 && code <= 0x7e) continue;
    const at = `character ${i + 1} of ${value.length}`;
    if (code === 0x0a || code === 0x0d) return `contains a line break (${at})`;
    if (code === 0x09) return `contains a tab (${at})`;
    if (code === 0x20) return `contains a space (${at})`;
    if (code < 0x20 || code === 0x7f) return `contains a control character (${at})`;
    return `contains a non-ASCII character (${at})`;
  }
  return undefined;
}

/** `value`, or an AuthError (exit 3) naming `source` and what to do; nothing is sent. */
export function checkCredential(value: string, source: string, hint?: string): string {
  const problem = value === '' ? 'is empty' : credentialProblem(value);
  if (problem) {
    throw new AuthError(`${source} ${problem}: not a valid credential, nothing was sent`, {
      code: 'BAD_CREDENTIAL',
      hint: hint ?? 'set it again exactly as issued: printable ASCII, no spaces or line breaks',
    });
  }
  return value;
}

/** Where the token or API key of a context comes from, for messages. */
export function credentialSource(kind: 'token' | 'apiKey', fromEnv: boolean, profileName: string): { source: string; hint: string } {
  if (fromEnv) {
    const name = kind === 'token' ? 'CARDCTL_TOKEN' : 'CARDCTL_API_KEY';
    return { source: name, hint: `set ${name} again without the extra characters, e.g. export ${name}="$(printf %s "$VALUE" | tr -d '[:space:]')"` };
  }
  const flag = kind === 'token' ? '--token-stdin' : '--api-key-stdin';
  return {
    source: `the ${kind === 'token' ? 'token' : 'API key'} of profile "${profileName}"`,
    hint: `store it again: printf %s "$VALUE" | cardctl login -p ${profileName} ${flag}`,
  };
}
