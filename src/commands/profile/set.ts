import { DEFAULT_DIALECT, DIALECT_KEYS, isDialectKey, readPath, withDialectValue, type DialectKey } from '../../api/dialect.js';
import { defineCommand } from '../../contract/command.js';
import { UsageError } from '../../core/errors.js';
import { SETTABLE_PROFILE_KEYS, type Profile } from '../../config/store.js';

const KEYS = Object.keys(SETTABLE_PROFILE_KEYS);
const DIALECT_KEY_NAMES = Object.keys(DIALECT_KEYS) as Array<keyof typeof DIALECT_KEYS>;
/** Rows of the help's tables fit 80 columns (commander would wrap a longer one to column 0). */
const HELP_ROW_WIDTH = 80;

/** A setting checked: a dialect setting (undefined: back to its default), or another (undefined: removed). */
type ProfileSetting = { dialectKey: DialectKey; value?: string } | { key: string; value: string | boolean | undefined };


export default defineCommand({
  name: 'set',
  mcp: 'never',
  summary: 'set a profile setting',
  description: `Set one setting of the selected profile (created when it does not exist yet). An empty value
removes the setting. Secrets (token, API key) are not settable here: use \`cardctl login\`.

Settings (${KEYS.filter((key) => SETTABLE_PROFILE_KEYS[key]!.boolean).join(' and ')} take true or false):
${settingLines().join('\n')}

The deployment dialect ("" sets one back to its default; each with its
default: \`cardctl help deployment\`; all from a file: \`cardctl profile
set-dialect FILE\`):
${dialectKeyLines().join('\n')}`,
  args: [
    { syntax: '<key>', description: `setting: ${KEYS.join(', ')}, or a dialect setting such as params.cards.limit` },
    { syntax: '<value>', description: 'new value ("" removes it)' },
  ],
  examples: [
    'cardctl profile set switch acme', 'cardctl profile set output json', 'cardctl -p prod profile set env production', 'cardctl profile set output ""',
    'cardctl profile set params.cards.limit pageSize', 'cardctl profile set paging.style short-page',
  ],
  async parse({ args, opts }): Promise<ProfileSetting> {
    const key = String(args[0]);
    const raw = String(args[1]);
    if (isDialectKey(key)) return { dialectKey: key, value: raw.trim() === '' ? undefined : raw.trim() };
    return { key, value: await parseSetting(key, raw, Boolean(opts.insecure)) };
  },
  async run(ctx, setting) {
    if ('dialectKey' in setting) {
      const { dialectKey: key, value } = setting;
      const { profileName } = ctx.settings();
      await ctx.config.update((config) => {
        const profile: Profile = { ...(config.profiles[profileName] ?? {}) };
        const dialect = withDialectValue(profile.dialect, key, value);
        if (Object.keys(dialect).length === 0) delete profile.dialect;
        else profile.dialect = dialect;
        config.profiles[profileName] = profile;
      });
      const now = readPath(ctx.config.getProfile(profileName)?.dialect ?? {}, key);
      ctx.output().success(now === undefined
        ? `Set ${key} back to the default (${String(readPath(DEFAULT_DIALECT, key))}) in profile "${profileName}"`
        : `Set ${key} = ${String(now)} in profile "${profileName}"`);
      return;
    }
    const { key, value } = setting;
    const { profileName } = ctx.settings();
    await ctx.config.update((config) => {
      const profile: Record<string, unknown> = { ...(config.profiles[profileName] ?? {}) };
      if (value === undefined) delete profile[key];
      else profile[key] = value;
      config.profiles[profileName] = profile as Profile;
    });
    ctx.output().success(value === undefined
      ? `Removed ${key} from profile "${profileName}"`
      : `Set ${key} = ${String(value)} in profile "${profileName}"`);
  },
});

/** The settings for the help: `key  description (values)`, the values on a line of their own when the row would not fit. */
function settingLines(): string[] {
  return KEYS.map((key) => {
    const { describe, values } = SETTABLE_PROFILE_KEYS[key]!;
    const head = `  ${key.padEnd(24)}${describe}`;
    if (!values) return head;
    const inline = `${head} (${values.join(', ')})`;
    return inline.length <= HELP_ROW_WIDTH ? inline : `${head}, one of:\n${' '.repeat(26)}${values.join(', ')}`;
  });
}

/**
 * The dialect settings for the help, a list's parameters in one row: `params.cards.OPTION  OPTION
 * one of: search, cardId, …`, the options on a line of their own when the row would not fit.
 */
function dialectKeyLines(): string[] {
  const lists = new Map<string, string[]>();
  const lines: string[] = [];
  for (const key of DIALECT_KEY_NAMES) {
    const list = /^params\.[^.]+/.exec(key)?.[0];
    if (list) {
      if (!lists.has(list)) { lists.set(list, []); lines.push(list); }
      lists.get(list)!.push(key.slice(list.length + 1));
    } else {
      lines.push(key);
    }
  }
  return lines.map((line) => {
    if (!lists.has(line)) return `  ${line.padEnd(28)}${DIALECT_KEYS[line as DialectKey]}`;
    const head = `  ${`${line}.OPTION`.padEnd(28)}OPTION one of:`;
    const options = lists.get(line)!.join(', ');
    return `${head} ${options}`.length <= HELP_ROW_WIDTH ? `${head} ${options}` : `${head}\n    ${options}`;
  });
}

/** Validates a `profile set` value; undefined means "remove the setting". */
export async function parseSetting(key: string, raw: string, insecure = false): Promise<string | boolean | undefined> {
  // Only the table's own keys: `toString` or `constructor` are no settings.
  const spec = Object.hasOwn(SETTABLE_PROFILE_KEYS, key) ? SETTABLE_PROFILE_KEYS[key] : undefined;
  if (!spec) {
    const secret = ['token', 'apiKey', 'pinKey', 'webhookSecret'].includes(key);
    throw new UsageError(`unknown setting "${key}"`, {
      hint: secret
        ? 'secrets and keys are stored by `cardctl login` (--token-stdin, --api-key-stdin, --pin-key)'
        : `settable: ${KEYS.join(', ')}, and the dialect settings (${DIALECT_KEY_NAMES.slice(0, 2).join(', ')}, …: see \`cardctl profile set --help\`)`,
    });
  }
  const value = raw.trim();
  if (value === '') return undefined;
  if (spec.boolean) {
    if (/^(true|yes|on|1)$/i.test(value)) return true;
    if (/^(false|no|off|0)$/i.test(value)) return false;
    throw new UsageError(`invalid value "${raw}" for ${key}: expected true or false`);
  }
  if (spec.values && !spec.values.includes(value)) {
    throw new UsageError(`invalid value "${raw}" for ${key}: expected one of ${spec.values.join(', ')}`);
  }
  switch (key) {
    case 'baseUrl':
    case 'tokenUrl': {
      const { parseBaseUrl } = await import('../../api/client.js');
      const url = parseBaseUrl(value, insecure);
      return (await import('../../core/validate.js')).normaliseBaseUrl(url);
    }
    case 'switch':
      if (!/^[A-Za-z0-9._~-]+$/.test(value)) throw new UsageError(`invalid value "${raw}" for switch: expected one URL path segment`);
      return value;
    case 'privateKeyPath': {
      const [{ existsSync }, { resolve }] = await Promise.all([import('node:fs'), import('node:path')]);
      const path = resolve(value);
      if (!existsSync(path)) throw new UsageError(`invalid value for privateKeyPath: ${path} does not exist`);
      return path;
    }
    default:
      return value;
  }
}
