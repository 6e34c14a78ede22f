import type { UpdateUserBody } from '../../api/schemas.js';
import { defineCommand } from '../../contract/command.js';
import { bodyFields, defineFlags, type BodyField, type FlagValues } from '../../core/flags.js';
import type { Context } from '../../contract/context.js';
import { UsageError } from '../../core/errors.js';
import * as fields from '../../core/card-fields.js';
import { validateDateTime, validateEmail, validatePhone, validateScope } from '../../core/validate.js';
import { bodyBoolean, bodyFromFile, bodyString, checkBodyKeys, readBodyFile } from '../oauth/body-file.js';

type UpdateOptions = FlagValues<typeof FLAGS>;

type Role = UpdateUserBody['roles'][number];


/** `admin=create:card,read:card` → {role: 'admin', permissions: ['create:card', 'read:card']}. */
export function parseRole(value: string): Role {
  const eq = value.indexOf('=');
  const role = (eq < 0 ? value : value.slice(0, eq)).trim();
  if (!role) throw new UsageError(`invalid --role "${value}": expected ROLE=PERMISSION,PERMISSION… e.g. admin=create:card,read:card`);
  const permissions = eq < 0 ? [] : value.slice(eq + 1).split(',').map((p) => p.trim()).filter(Boolean);
  return { role, permissions: [...new Set(permissions.map((p) => validateScope(`--role ${role} permission`, p)))] };
}

function rolesFromFile(value: unknown): Role[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new UsageError('--from-file: "roles" must be an array of {role, permissions}');
  return value.map((r, i) => {
    if (!r || typeof r !== 'object' || typeof r.role !== 'string' || !r.role.trim() || !Array.isArray(r.permissions) || r.permissions.some((p: unknown) => typeof p !== 'string')) {
      throw new UsageError(`--from-file: roles[${i}] must be {"role": text, "permissions": [text, …]}`);
    }
    return { role: r.role.trim(), permissions: r.permissions.map((p: string) => validateScope(`roles[${i}].permissions`, p)) };
  });
}

/** Every flag of `users update`; those with a path are fields of the Update User body. */
const FLAGS = defineFlags({
  firstName: { type: 'string', value: 'name', description: 'first name', path: 'firstName', parse: fields.personName, required: true, prompt: 'First name' },
  lastName: { type: 'string', value: 'name', description: 'last name', path: 'lastName', parse: fields.personName, required: true, prompt: 'Last name' },
  email: { type: 'string', value: 'address', description: 'email address', path: 'emailAddress', parse: validateEmail, required: true, prompt: 'Email' },
  phone: { type: 'string', value: 'number', description: 'phone number', path: 'phoneNumber', parse: validatePhone, required: true, prompt: 'Phone' },
  status: { type: 'string', value: 'status', description: 'user status, e.g. active', path: 'status', required: true, prompt: 'Status (e.g. active)' },
  blocked: { type: 'boolean', description: 'block the user', negation: 'unblock the user' },
  role: { type: 'list', value: 'role=perms', repeat: 'variadic', description: 'role and its permissions, e.g. admin=create:card,read:card (repeatable)' },
  embossingName: { type: 'string', value: 'name', description: 'embossing name', path: 'embossingName', parse: fields.embossingName },
  startDate: { type: 'string', value: 'date', description: 'start date (YYYY-MM-DD or ISO date-time)', path: 'startDate', parse: validateDateTime },
  expiryDate: { type: 'string', value: 'date', description: 'expiry date (YYYY-MM-DD or ISO date-time)', path: 'expiryDate', parse: validateDateTime },
  printCard: { type: 'boolean', description: 'print a card' },
  fromFile: { type: 'string', value: 'file', complete: 'file', description: 'JSON body (or - for stdin); flags override its fields' },
});

/** The body's text fields, each with its flag, validator and question. */
const TEXT_FIELDS = bodyFields(FLAGS);
const BODY_KEYS = new Set([...TEXT_FIELDS.map((f) => f.path), 'isBlocked', 'roles', 'printCard']);

/** A text field as given (flag or --from-file), checked by its flag's validator. */
const fieldValue = (field: BodyField, value: string) => (field.parse ? field.parse(field.flag, value) : value.trim());

/** What `users update`'s parse step reads and checks: the user id, and the --from-file body unless it is stdin. */
export interface UpdateInput {
  userId: string;
  opts: UpdateOptions;
  file?: Record<string, unknown>;
}

/** The user id, the body file and every field given, checked; what is missing is asked for (or refused) by run(). */
export async function parseUpdate({ args, opts }: { args: [string]; opts: UpdateOptions }): Promise<UpdateInput> {
  const userId = String(args[0] ?? '').trim();
  if (!userId) throw new UsageError('missing the user id: cardctl users update USER_ID');
  const file = opts.fromFile === undefined || opts.fromFile === '-' ? undefined : await bodyFromFile(opts.fromFile, BODY_KEYS);
  const body = file ?? {};
  const values: Record<string, unknown> = {};
  for (const field of TEXT_FIELDS) {
    const value = (opts[field.key as keyof UpdateOptions] as string | undefined) ?? bodyString(body, field.path);
    if (value !== undefined && value.trim() !== '') values[field.path] = fieldValue(field, value);
  }
  bodyBoolean(body, 'isBlocked');
  if (opts.role) opts.role.map(parseRole);
  else rolesFromFile(body.roles);
  checkDates(values);
  bodyBoolean(body, 'printCard');
  return { userId, opts, file };
}

/** An expiry date before the start date is refused. */
function checkDates(body: Record<string, unknown>): void {
  if (typeof body.startDate === 'string' && typeof body.expiryDate === 'string') {
    fields.assertEndAfterStart({ label: '--start-date', value: body.startDate }, { label: '--expiry-date', value: body.expiryDate });
  }
}

/** Flags over the --from-file body (`read`: read by the parse step), missing values asked for on a terminal: the request body. */
export async function parseUpdateOptions(ctx: Pick<Context, 'io' | 'prompter'>, opts: UpdateOptions, read: { file?: Record<string, unknown> } = {}): Promise<UpdateUserBody> {
  const file = read.file ?? await readBodyFile(ctx, opts.fromFile);
  checkBodyKeys(file, BODY_KEYS);
  const prompt = ctx.io.canPrompt;
  const missing: string[] = [];
  const given = (field: BodyField) => (opts[field.key as keyof UpdateOptions] as string | undefined) ?? bodyString(file, field.path);
  const body: Record<string, unknown> = {};

  for (const field of TEXT_FIELDS.filter((f) => f.required)) {
    let value = given(field);
    if (value === undefined && prompt) value = await ctx.prompter.input(field.prompt ?? field.flag, { validate: (v) => (v.trim() ? true : 'required') });
    if (value === undefined || value.trim() === '') {
      missing.push(field.flag);
      continue;
    }
    body[field.path] = fieldValue(field, value);
  }

  let isBlocked = opts.blocked ?? bodyBoolean(file, 'isBlocked');
  if (isBlocked === undefined && prompt) isBlocked = await ctx.prompter.confirm('Block this user?', { default: false });
  if (isBlocked === undefined) missing.push('--blocked or --no-blocked');

  let roles = opts.role ? opts.role.map(parseRole) : rolesFromFile(file.roles);
  if (roles === undefined && prompt) {
    const answer = await ctx.prompter.input('Roles (ROLE=PERM,PERM; several separated by spaces)', { validate: (v) => (v.trim() ? true : 'at least one role') });
    roles = answer.trim().split(/\s+/).map(parseRole);
  }
  if (roles === undefined) missing.push('--role');

  if (missing.length) {
    throw new UsageError(`missing ${missing.join(', ')} (the API requires them)`, {
      hint: 'give every required flag, or a --from-file body; see `cardctl users update --help`',
    });
  }
  body.isBlocked = isBlocked;
  body.roles = roles;
  for (const field of TEXT_FIELDS.filter((f) => !f.required)) {
    const value = given(field);
    if (value !== undefined) body[field.path] = fieldValue(field, value);
  }
  checkDates(body);
  const printCard = opts.printCard ?? bodyBoolean(file, 'printCard');
  if (printCard !== undefined) body.printCard = printCard;
  // Built field by field from the validators above; the API's schema check (ajv) stays off this path.
  return body as UpdateUserBody;
}

export default defineCommand({
  name: 'update',
  mcp: 'write',
  output: async () => (await import('../output-shapes.js')).userShape(),
  summary: 'update an institution user',
  description: `Update an institution user (PUT /institutions/users/{id}/update).

The API requires first and last name, email, phone, status, blocked or not, and roles; give them \
as flags or in a --from-file JSON body (flags override it). On a terminal, missing values are \
asked for. --role ROLE=PERM,PERM is repeatable and replaces every role of the user; permissions \
have the verb:object form of OAuth scopes. Prints the updated user.`,
  args: [{ syntax: '<user-id>', description: 'institution user identifier' }],
  flags: FLAGS,
  examples: [
    'cardctl users update 6653bb --first-name Ada --last-name Obi --email ada@example.com --phone +2348012345678 --status active --no-blocked --role admin=create:card,read:card',
    'cardctl users update 6653bb --from-file user.json --role viewer=read:card --role ops=read:transaction',
  ],
  parse: parseUpdate,
  async run(ctx, { userId, opts, file }) {
    const body = await parseUpdateOptions(ctx, opts, { file });
    const { updateInstitutionUser } = await import('../../api/users.js');
    const { userRows } = await import('../../output/columns/users.js');
    const client = await ctx.client();
    const response = await updateInstitutionUser(client, userId, body);
    const out = ctx.output();
    if (out.format === 'raw') return out.value(response.data, response.raw);
    out.success(response.message || `updated user ${userId}`);
    const user = response.data && typeof response.data === 'object' ? response.data : { id: userId, ...body };
    await out.record(user, { rows: userRows, idPath: 'id' });
  },
});
