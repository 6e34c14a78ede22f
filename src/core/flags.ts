// A flag, declared once: its type, value name, choices, default, validator, environment
// variable, request-body path (for --from-file), wizard question and how shells complete it.
// From the declaration come the commander option and its help line, the typed options object
// (FlagValues), the body fields a command fills from flags, files and prompts (bodyFields), and
// the completion scripts' value lists (completionOf).
import { Option, type Command } from 'commander';
import type { FieldValidator } from './card-fields.js';
import { UsageError } from './errors.js';

interface FlagBase {
  description: string;
  /** One-letter alias, e.g. `o` for `-o`. */
  short?: string;
  /** The flag as typed, when it is not the kebab-case of its key (`enroll2fa` → `enroll-2fa`). */
  long?: string;
  /** The environment variable that gives the same setting; named in the help line. */
  env?: string;
  /**
   * Not a tool input of `cardctl mcp`: a guard only the person at the keyboard may lift
   * (--allow-remote), or a file of secrets (--pins-from-column). Secret and card-number flags
   * never are, without saying so.
   */
  mcp?: false;
}

/**
 * How the shells complete a flag's value: stored profile names, file or directory names, or
 * these words (suggested, not enforced: `choices` both enforces and completes).
 */
export type Completion = 'profile' | 'file' | 'directory' | readonly string[];

/*
 * Secrets and card numbers. Secrets never come from argv: shell history, `ps` and CI logs would
 * keep them. So `secret: true` is allowed only on a boolean `--…-stdin` flag, which says that the
 * secret comes on stdin; a secret flag that takes a value is refused when its declaration is read
 * (defineFlags, and every command's flags when the tree is built), and TypeScript refuses it first.
 * A value that is a card number is declared `pan: true`: the recorded command line (the audit
 * journal, the only place argv is written) masks it. That line shows the values of declared flags
 * only; a value given to a flag nothing declares is withheld. The journal's scrubbing of free text
 * (known secrets, card numbers in any field) stays the second line of defence.
 */

/** Characters of a `--reason` (why, kept in each audit journal entry; renew's is the API's renewal reason), and of an MCP write tool's reason. */
export const REASON_MAX_LENGTH = 500;

export interface ValueFlag extends FlagBase {
  type: 'string';
  /** The value is a card number: masked wherever the command line is recorded. */
  pan?: boolean;
  secret?: never;
  /** The value's name in help: `--program <id>`. */
  value: string;
  /** The value may be left out (`--resume [report]`): the flag alone gives run() `true`. */
  valueOptional?: boolean;
  choices?: readonly string[];
  default?: string;
  /** The field validator: used for the flag, for the same field in --from-file, and for the wizard's answer. */
  parse?: FieldValidator;
  /** At most this many characters: a longer value is a usage error before anything runs, and the help line says so. */
  maxLength?: number;
  /** Where the value goes in a request body (and so where --from-file holds it), dot-separated. */
  path?: string;
  /** The wizard's question when the value is missing. */
  prompt?: string;
  /** The request body needs it: asked for on a terminal, a usage error naming the flag otherwise. */
  required?: boolean;
  complete?: Completion;
}

export interface BooleanFlag extends FlagBase {
  type: 'boolean';
  /** A `--…-stdin` flag whose stdin carries a secret (see above). */
  secret?: boolean;
  /** Where true or false goes in a request body, dot-separated. */
  path?: string;
  /** For a secret `--…-stdin` flag: the hidden question for the secret when nothing is piped. */
  prompt?: string;
  /** Also `--no-NAME`, with this help line (undefined when neither is given). */
  negation?: string;
}

/** `--no-NAME` alone: true unless given. */
export interface NegatedFlag extends FlagBase {
  type: 'negated';
}

/** A value that may be given several times: `--scope a b` (variadic) or `-H x -H y` (each). */
export interface ListFlag extends FlagBase {
  type: 'list';
  value: string;
  /** `variadic`: one flag takes the following words; `each`: one word per flag, repeated. */
  repeat: 'variadic' | 'each';
  complete?: Completion;
  secret?: never;
  /** The validator of each value. */
  parse?: FieldValidator;
  /** Where the values go in a request body, as an array. */
  path?: string;
  /** The wizard's question when no value is given. */
  prompt?: string;
  required?: boolean;
}

export type FlagSpec = ValueFlag | BooleanFlag | NegatedFlag | ListFlag;
export type Flags = Readonly<Record<string, FlagSpec>>;

/** The type of one flag's value as run() receives it. */
export type FlagValue<F extends FlagSpec> =
  F extends ValueFlag
    ? F extends { valueOptional: true } ? string | true | undefined
    : F extends { choices: readonly (infer C extends string)[] }
      ? F extends { default: string } ? C : C | undefined
      : F extends { default: string } ? string : string | undefined
    : F extends NegatedFlag ? boolean
    : F extends BooleanFlag ? boolean | undefined
    : F extends ListFlag ? string[] | undefined
    : never;

/** The options object of a set of flags, inferred from their declarations. */
export type FlagValues<F extends Flags> = { -readonly [K in keyof F]: FlagValue<F[K]> };

/** A group of flags several commands share; spread it into their `flags`. */
export function defineFlags<const F extends Flags>(flags: F): F {
  for (const [key, spec] of Object.entries(flags)) checkSecret(key, spec);
  return flags;
}

/** Refuses a secret that would come from argv (see above). */
function checkSecret(key: string, spec: FlagSpec): void {
  if (!('secret' in spec) || !spec.secret) return;
  const long = longFlag(key, spec);
  if (spec.type !== 'boolean' || !long.endsWith('-stdin')) {
    throw new Error(`${long} is declared secret but is not a --…-stdin switch: secrets are read from stdin or the environment, never from argv`);
  }
}

/** The flag as typed: `--` and the key in kebab case, unless the declaration names it. */
export function longFlag(key: string, spec: FlagSpec): string {
  return `--${spec.long ?? key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

const completions = new WeakMap<Option, Completion>();

/** How the value of a commander option built here completes (undefined: no completion). */
export function completionOf(option: Option): Completion | undefined {
  return completions.get(option);
}

/** The commander options of a set of flags, in declaration order. */
export function commanderOptions(flags: Flags): Option[] {
  const options: Option[] = [];
  for (const [key, spec] of Object.entries(flags)) {
    checkSecret(key, spec);
    const long = longFlag(key, spec);
    const short = spec.short ? `-${spec.short}, ` : '';
    const description = spec.env ? `${spec.description} (env ${spec.env})` : spec.description;
    let option: Option;
    switch (spec.type) {
      case 'string': {
        const bounded = spec.maxLength === undefined ? description : `${description} (at most ${spec.maxLength} characters)`;
        option = new Option(spec.valueOptional ? `${short}${long} [${spec.value}]` : `${short}${long} <${spec.value}>`, bounded);
        if (spec.choices) option.choices(spec.choices);
        // A field with its own validator is refused in that validator's words, as in a file.
        const parse = spec.parse;
        if (spec.choices && parse) option.argParser((value: string) => parse(long, value));
        const maxLength = spec.maxLength;
        if (maxLength !== undefined) {
          option.argParser((value: string) => {
            if (value.length > maxLength) throw new UsageError(`invalid ${long}: at most ${maxLength} characters (this has ${value.length})`);
            return value;
          });
        }
        if (spec.default !== undefined) option.default(spec.default);
        break;
      }
      case 'list':
        option = new Option(`${short}${long} <${spec.value}${spec.repeat === 'variadic' ? '...' : ''}>`, description);
        if (spec.repeat === 'each') option.argParser((value: string, all: string[] = []) => [...all, value]);
        break;
      case 'negated':
        option = new Option(`${short}--no-${long.slice(2)}`, description);
        break;
      case 'boolean':
        option = new Option(`${short}${long}`, description);
        break;
    }
    options.push(option);
    if ((spec.type === 'string' || spec.type === 'list') && spec.complete) completions.set(option, spec.complete);
    if (spec.type === 'boolean' && spec.negation) options.push(new Option(`--no-${long.slice(2)}`, spec.negation));
  }
  return options;
}

/** Every word that names one of these flags (`--long`, `-s`, `--no-long`), with its declaration. */
export function flagWords(flagSets: readonly Flags[]): Map<string, FlagSpec> {
  const words = new Map<string, FlagSpec>();
  for (const flags of flagSets) {
    for (const [key, spec] of Object.entries(flags)) {
      const long = longFlag(key, spec);
      words.set(spec.type === 'negated' ? `--no-${long.slice(2)}` : long, spec);
      if (spec.short) words.set(`-${spec.short}`, spec);
      if (spec.type === 'boolean' && spec.negation) words.set(`--no-${long.slice(2)}`, spec);
    }
  }
  return words;
}

/** Whether the flag consumes a value. */
export function takesValue(spec: FlagSpec): spec is ValueFlag | ListFlag {
  return spec.type === 'string' || spec.type === 'list';
}

/** Adds the flags to a commander command. */
export function addFlags(command: Command, flags: Flags): Command {
  for (const option of commanderOptions(flags)) command.addOption(option);
  return command;
}

/** The flags that fill a request body: key, flag as typed, body path and validator, in declaration order. */
export interface BodyField {
  key: string;
  flag: string;
  path: string;
  parse?: FieldValidator;
  prompt?: string;
  required?: boolean;
}

/** Every body path the flags fill, whatever their type: the fields a --from-file body may hold. */
export function bodyPaths(flags: Flags): string[] {
  return Object.values(flags).flatMap((spec) => ('path' in spec && spec.path !== undefined ? [spec.path] : []));
}

export function bodyFields(flags: Flags): BodyField[] {
  const fields: BodyField[] = [];
  for (const [key, spec] of Object.entries(flags)) {
    if (spec.type !== 'string' || spec.path === undefined) continue;
    fields.push({ key, flag: longFlag(key, spec), path: spec.path, parse: spec.parse, prompt: spec.prompt, required: spec.required });
  }
  return fields;
}

