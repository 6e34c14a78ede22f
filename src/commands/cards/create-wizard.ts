// What `cards create` fills in for one card: on a terminal, prompts for what is missing (each
// answer checked like its flag); elsewhere the defaults (name on the card, currency, dates, the
// program's bank code), or an error naming the missing flag. checkedFields() then holds the body
// to the API's Create Card schema, which is what makes it a CreateCardFields.
import type { ApiClient } from '../../api/client.js';
import type { CardProgram, CreateCardFields } from '../../api/schemas.js';
import type { SchemaCheck } from '../../api/schema-check.js';
import type { Context } from '../../contract/context.js';
import { NotFoundError, UsageError } from '../../core/errors.js';
import * as fields from '../../core/card-fields.js';
import type { BodyField } from '../../core/flags.js';
import { EMBOSSING_NAME } from '../../core/field-rules.js';
import { getPath, setPath } from '../../core/object-path.js';
import { accountCurrency, trimmed, type Json } from './fields.js';
import { ACCOUNT_FIELDS, CUSTOMER_FIELDS, dateTime, REQUIRED } from './create-flags.js';
import type { ParsedCreate } from './create-parse.js';

const embossing = fields.embossingName;

/** A reference for retries: cardctl-YYYYMMDD-<8 random hex>. */
export async function generateReference(now: Date): Promise<string> {
  const { randomBytes } = await import('node:crypto');
  return `cardctl-${now.toISOString().slice(0, 10).replace(/-/g, '')}-${randomBytes(4).toString('hex')}`;
}

/** Start + the program's maximum validity in months, on the last day of the month if needed. */
export function defaultExpiry(startIso: string, months: number): string {
  const start = new Date(startIso);
  const year = start.getUTCFullYear();
  const month = start.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(start.getUTCDate(), lastDay);
  return new Date(Date.UTC(year, month, day, start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds())).toISOString();
}

export function today(now: Date): string {
  return `${now.toISOString().slice(0, 10)}T00:00:00.000Z`;
}

/** The default name on the card: the cardholder's, in plain capitals (accents dropped: Adé → ADE). */
export function nameOnCard(body: Json): string {
  return fullNameOnCard(body).slice(0, EMBOSSING_NAME.maxLength).trim();
}

/** The cardholder's names as a card would print them, before the cut to the 26 characters a card holds. */
function fullNameOnCard(body: Json): string {
  return `${String(getPath(body, 'customer.firstName') ?? '')} ${String(getPath(body, 'customer.lastName') ?? '')}`
    .normalize('NFD').replace(/[\u0300-\u036f]/g, '').trim().toUpperCase();
}

/** The warning for a name on the card cut from the cardholder's names (--dry-run too), or undefined. */
export function nameCutWarning(body: Json, where = ''): string | undefined {
  const full = fullNameOnCard(body);
  if (full.length <= EMBOSSING_NAME.maxLength) return undefined;
  return `${where}the name on the card is cut to ${EMBOSSING_NAME.maxLength} characters: "${nameOnCard(body)}" (from "${full}"); give --embossing-name to choose it`;
}

/** A random PIN that is not trivially weak: for --no-pin cards (the API requires a block anyway) and bulk rows. */
export async function unusablePin(): Promise<string> {
  const { randomPin } = await import('../../pin/policy.js');
  return randomPin();
}

let fieldsCheck: Promise<SchemaCheck<typeof CreateCardFields>> | undefined;

/** The body checked against the API's schema (a failure here is a value no flag validator caught). */
export async function checkedFields(body: Json, where: string): Promise<CreateCardFields> {
  fieldsCheck ??= Promise.all([import('../../api/schema-check.js'), import('../../api/schemas.js')])
    .then(([{ schemaCheck }, { CreateCardFields }]) => schemaCheck(CreateCardFields));
  const [check, { checkedBody }] = await Promise.all([fieldsCheck, import('../../api/schema-check.js')]);
  return checkedBody(check, body, where);
}

export interface ProgramLookup {
  get(): Promise<CardProgram[] | undefined>;
}

/** The institution's card programs, fetched at most once and only when asked. */
export function programLookup(ctx: Context, client: () => Promise<ApiClient>): ProgramLookup {
  let cached: Promise<CardProgram[] | undefined> | undefined;
  return {
    get() {
      cached ??= (async () => {
        const { listCardPrograms } = await import('../../api/cards.js');
        return listCardPrograms(await client(), ctx.signal);
      })();
      return cached;
    },
  };
}

function missingRequired(body: Json): BodyField[] {
  return REQUIRED.filter(({ path }) => {
    const value = getPath(body, path);
    return value === undefined || value === '';
  });
}

/** Asks for one missing value, validated like its flag. */
async function ask(ctx: Context, question: string, parse: (label: string, value: string) => string, label: string, fallback?: string): Promise<string> {
  const answer = await ctx.prompter.input(`${question}:`, {
    default: fallback,
    validate: (value) => {
      try {
        parse(label, value);
        return true;
      } catch (error) {
        return (error as Error).message;
      }
    },
  });
  return parse(label, answer);
}

const text = (value: unknown): string => (typeof value === 'string' ? value : String(value));

/** Fills what is missing: prompts on a terminal, defaults where there are sensible ones. */
export async function complete(ctx: Context, parsed: ParsedCreate, programs: ProgramLookup): Promise<{ prompted: boolean; program?: CardProgram }> {
  const body = parsed.body;
  let prompted = false;
  const missing = missingRequired(body);
  if (missing.length && !ctx.io.canPrompt) {
    throw new UsageError(`missing ${missing.map((m) => m.flag).join(', ')}`, {
      hint: 'give them as flags or in --from-file, or run on a terminal to be asked (see `cardctl cards create --help`)',
    });
  }

  if (body.cardProgram === undefined) {
    prompted = true;
    const list = (await programs.get())?.filter((p) => p.active !== false);
    if (list && list.length > 0) {
      body.cardProgram = await ctx.prompter.select(
        'Card program:',
        list.map((p) => ({ name: `${p.name} (${p.scheme}, up to ${p.maxExpiry} months)`, value: p.id, description: p.id })),
        { default: list[0]!.id },
      );
    } else {
      body.cardProgram = await ask(ctx, 'Card program id', trimmed, 'card program id');
    }
  }
  // The program's terms give defaults (bank code, expiry); only looked up when they are needed.
  const needProgram = prompted || getPath(body, 'account.bankCode') === undefined || body.expiryDate === undefined;
  const known = needProgram ? await programs.get() : undefined;
  const program = known?.find((p) => p.id === body.cardProgram || p._id === body.cardProgram);
  if (known && !program) {
    throw new NotFoundError(`card program ${String(body.cardProgram)} not found`, {
      hint: known.length ? `programs of this institution: ${known.slice(0, 5).map((p) => `${p.id} (${p.name})`).join(', ')}` : 'this institution has no card programs',
    });
  }

  for (const spec of CUSTOMER_FIELDS) {
    if (!spec.required || getPath(body, spec.path) !== undefined) continue;
    prompted = true;
    setPath(body, spec.path, await ask(ctx, spec.prompt ?? spec.flag, spec.parse ?? trimmed, spec.flag));
  }
  if (body.embossingName === undefined) {
    const fromName = nameOnCard(body);
    if (prompted) body.embossingName = await ask(ctx, 'Name on the card', embossing, '--embossing-name', fromName);
    else {
      body.embossingName = embossing('--embossing-name', fromName);
      const cut = nameCutWarning(body);
      if (cut) ctx.log.warn(cut);
    }
  }
  for (const spec of ACCOUNT_FIELDS) {
    const path = spec.path;
    if (getPath(body, path) !== undefined) continue;
    if (spec.key === 'bankCode' && program?.bankCode && !prompted) {
      setPath(body, path, program.bankCode);
      continue;
    }
    if (!ctx.io.canPrompt) throw new UsageError(`missing ${spec.flag}`, { hint: spec.key === 'bankCode' ? 'the card program does not say which bank code to use' : undefined });
    prompted = true;
    const fallback = spec.key === 'accountType' ? 'savings' : spec.key === 'bankCode' ? program?.bankCode : undefined;
    setPath(body, path, await ask(ctx, spec.prompt ?? spec.flag, trimmed, spec.flag, fallback));
  }
  if (getPath(body, 'account.currency') === undefined) {
    if (prompted) {
      const answer = await ask(ctx, 'Currency (ISO 4217)', (_l, v) => v.trim(), '--currency', '566');
      setPath(body, 'account.currency', await accountCurrency('--currency', answer));
    } else {
      setPath(body, 'account.currency', '566');
    }
  }
  const now = ctx.clock.now();
  const startDate = text(body.startDate ??= prompted ? await ask(ctx, 'Valid from (YYYY-MM-DD)', dateTime, '--start-date', today(now).slice(0, 10)) : today(now));
  if (body.expiryDate === undefined) {
    const fallback = program ? defaultExpiry(startDate, program.maxExpiry) : undefined;
    if (prompted || (!fallback && ctx.io.canPrompt)) {
      prompted = true;
      body.expiryDate = await ask(ctx, 'Expires (YYYY-MM-DD)', dateTime, '--expiry-date', fallback?.slice(0, 10));
    } else if (fallback) {
      body.expiryDate = fallback;
    } else {
      throw new UsageError('missing --expiry-date', { hint: "the card program's maximum validity is not known here, so there is no default" });
    }
  }
  const expiryDate = text(body.expiryDate);
  fields.assertEndAfterStart({ label: '--start-date', value: startDate }, { label: '--expiry-date', value: expiryDate });
  if (program && Date.parse(expiryDate) > Date.parse(defaultExpiry(startDate, program.maxExpiry))) {
    throw new UsageError(`the expiry date ${expiryDate.slice(0, 10)} is beyond the program's maximum validity of ${program.maxExpiry} months from the start date`);
  }
  return { prompted, program };
}
