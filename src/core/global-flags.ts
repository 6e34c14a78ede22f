// The flags every command takes. GlobalOptions, the type the context reads them as, is inferred
// from these declarations.
import { OUTPUT_FORMATS } from './output-format.js';
import { defineFlags, type FlagValues } from './flags.js';

export const GLOBAL_FLAGS = defineFlags({
  profile: { type: 'string', short: 'p', value: 'name', complete: 'profile', description: 'stored profile to use', env: 'CARDCTL_PROFILE' },
  baseUrl: { type: 'string', value: 'url', description: 'API base URL, overrides the profile', env: 'CARDCTL_BASE_URL', prompt: 'API base URL' },
  output: { type: 'string', short: 'o', value: 'format', description: 'output format', env: 'CARDCTL_OUTPUT', choices: OUTPUT_FORMATS },
  json: { type: 'boolean', description: 'same as -o json' },
  fields: { type: 'string', value: 'list', description: 'columns or properties to show, comma-separated, dot paths allowed' },
  quiet: { type: 'boolean', short: 'q', description: 'print only identifiers, one per line' },
  color: { type: 'negated', description: 'never use colour (also NO_COLOR)' },
  verbose: { type: 'boolean', short: 'v', description: 'log each HTTP request to stderr (also CARDCTL_DEBUG=1)' },
  debug: { type: 'boolean', description: 'also log headers and bodies (secrets redacted) and stack traces' },
  timeout: { type: 'string', value: 'seconds', description: 'per-request timeout in seconds (default 30)' },
  retries: { type: 'string', value: 'n', description: 'retries for safe requests after network errors, 429 and 500/502/503/504 (default 2)' },
  retry: { type: 'negated', description: 'never retry' },
  insecure: { type: 'boolean', description: 'allow plain http:// to a non-loopback host' },
  yes: { type: 'boolean', short: 'y', description: 'answer yes to confirmations' },
  confirmProduction: { type: 'boolean', description: 'with --yes: also confirm destructive steps on a production profile' },
  dryRun: { type: 'boolean', description: 'validate and print the request a mutating command would send; send nothing' },
  input: { type: 'negated', description: 'never prompt (also when CI is set)' },
  jq: { type: 'string', value: 'expression', description: 'filter the JSON output with a jq expression (strings print raw)' },
  template: { type: 'string', value: 'template', description: "print each record with a template, e.g. '{{.id}}\\t{{.status}}' (cardctl help output)" },
  pager: { type: 'negated', description: 'never page table output (also CARDCTL_PAGER=cat)' },
  showSecrets: { type: 'boolean', description: 'show secret-named fields (webhook secrets, tokens, keys) in the output; never for MCP tools' },
});

/**
 * The global options as commands and the context read them. Every key is optional: a context
 * built outside the command line (tests, the demo) gives only what it sets.
 */
export type GlobalOptions = Partial<FlagValues<typeof GLOBAL_FLAGS>> & {
  /** --wide, for the commands that declare it. */
  wide?: boolean;
};
