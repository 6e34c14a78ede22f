import type { UpdateUserBody } from '../../api/schemas.js';
import { defineCommand } from '../../core/command.js';
import { defineFlags, type FlagValues } from '../../core/flags.js';
import type { Context } from '../../core/context.js';
import { UsageError } from '../../core/errors.js';
import * as fields from '../../core/card-fields.js';
import { validateDateTime, validateEmail, validatePhone, validateScope } from '../../core/validate.js';
import { bodyBoolean, bodyString, readBodyFile } from '../oauth/body-file.js';

type UpdateOptions = FlagValues<typeof FLAGS>;

type Role = UpdateUserBody['roles'][number];

const BODY_KEYS = new Set([
  'firstName', 'lastName', 'emailAddress', 'phoneNumber', 'status', 'isBlocked', 'roles',
  'embossingName', 'startDate', 'expiryDate', 'printCard',
]);

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

export async function parseUpdateOptions(ctx: Context, opts: UpdateOptions): Promise<UpdateUserBody> {
  const file = await readBodyFile(ctx, opts.fromFile);
  for (const key of Object.keys(file)) if (!BODY_KEYS.has(key)) throw new UsageError(`--from-file: unknown field "${key}"`);
  const prompt = ctx.io.canPrompt;
  const missing: string[] = [];

  const text = async (given: string | undefined, fileKey: string, flag: string, label: string, check?: (v: string) => string) => {
    let value = given ?? bodyString(file, fileKey);
    if (value === undefined && prompt) value = await ctx.prompter.input(label, { validate: (v) => (v.trim() ? true : 'required') });
    if (value === undefined || value.trim() === '') {
      missing.push(flag);
      return '';
    }
    return check ? check(value) : value.trim();
  };

  const firstName = await text(opts.firstName, 'firstName', '--first-name', 'First name', (v) => fields.personName('--first-name', v));
  const lastName = await text(opts.lastName, 'lastName', '--last-name', 'Last name', (v) => fields.personName('--last-name', v));
  const emailAddress = await text(opts.email, 'emailAddress', '--email', 'Email', (v) => validateEmail('--email', v));
  const phoneNumber = await text(opts.phone, 'phoneNumber', '--phone', 'Phone', (v) => validatePhone('--phone', v));
  const status = await text(opts.status, 'status', '--status', 'Status (e.g. active)');

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
  const body: UpdateUserBody = { firstName, lastName, emailAddress, phoneNumber, status, isBlocked: isBlocked!, roles: roles! };
  const embossingName = opts.embossingName ?? bodyString(file, 'embossingName');
  if (embossingName !== undefined) body.embossingName = fields.embossingName('--embossing-name', embossingName);
  const startDate = opts.startDate ?? bodyString(file, 'startDate');
  if (startDate !== undefined) body.startDate = validateDateTime('--start-date', startDate);
  const expiryDate = opts.expiryDate ?? bodyString(file, 'expiryDate');
  if (expiryDate !== undefined) body.expiryDate = validateDateTime('--expiry-date', expiryDate);
  if (body.startDate && body.expiryDate) {
    fields.assertEndAfterStart({ label: '--start-date', value: body.startDate }, { label: '--expiry-date', value: body.expiryDate });
  }
  const printCard = opts.printCard ?? bodyBoolean(file, 'printCard');
  if (printCard !== undefined) body.printCard = printCard;
  return body;
}

const FLAGS = defineFlags({
  firstName: { type: 'string', value: 'name', description: 'first name' },
  lastName: { type: 'string', value: 'name', description: 'last name' },
  email: { type: 'string', value: 'address', description: 'email address' },
  phone: { type: 'string', value: 'number', description: 'phone number' },
  status: { type: 'string', value: 'status', description: 'user status, e.g. active' },
  blocked: { type: 'boolean', description: 'block the user', negation: 'unblock the user' },
  role: { type: 'list', value: 'role=perms', repeat: 'variadic', description: 'role and its permissions, e.g. admin=create:card,read:card (repeatable)' },
  embossingName: { type: 'string', value: 'name', description: 'embossing name' },
  startDate: { type: 'string', value: 'date', description: 'start date (YYYY-MM-DD or ISO date-time)' },
  expiryDate: { type: 'string', value: 'date', description: 'expiry date (YYYY-MM-DD or ISO date-time)' },
  printCard: { type: 'boolean', description: 'print a card' },
  fromFile: { type: 'string', value: 'file', description: 'JSON body (or - for stdin); flags override its fields' },
});

export default defineCommand({
  name: 'update',
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
  async run(ctx, { args, opts }) {
    const userId = String(args[0] ?? '').trim();
    if (!userId) throw new UsageError('missing the user id: cardctl users update USER_ID');
    const body = await parseUpdateOptions(ctx, opts);
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
