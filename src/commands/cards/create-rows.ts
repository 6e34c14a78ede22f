// `cards create --rows-from-file`: each row a Create Card body from columns named like the flags
// (flags fill what a row leaves out), sent exactly once by its reference through the bulk runner.
import type { Card, CardProgram, CreateCardFields } from '../../api/schemas.js';
import type { Context } from '../../contract/context.js';
import { CliError, RejectedError } from '../../core/errors.js';
import * as fields from '../../core/card-fields.js';
import { getPath, setPath } from '../../core/object-path.js';
import { UNUSABLE_CARD, unusableForRow } from '../../bulk/found-card.js';
import { accountCurrency, trimmed, type Json } from './fields.js';
import { explainPinKeyError } from './common.js';
import { BODY_FIELDS, type CreateOptions } from './create-flags.js';
import type { CreateInput } from './create-parse.js';
import { checkedFields, defaultExpiry, nameCutWarning, nameOnCard, programLookup, today, unusablePin } from './create-wizard.js';

/** One card of a bulk creation: its body without the PIN block, and the PIN (kept in memory only). */
interface CardRow {
  body: CreateCardFields;
  pin: string;
}

/** Booleans a row may give, by column, and where they go in the body. */
const ROW_BOOLEANS = { pin: 'pinEnabled', 'enroll-2fa': 'enroll2FA', 'print-card': 'printCard' } as const;

export async function createRows(ctx: Context, input: Extract<CreateInput, { kind: 'rows' }>): Promise<void> {
  const { opts, pinColumn, defaultCurrency } = input;
  const columns = new Map(BODY_FIELDS.map((field) => [field.flag.replace(/^--/, ''), field]));
  const known = [...columns.keys(), ...Object.keys(ROW_BOOLEANS), ...(pinColumn ? [pinColumn] : [])];
  const [{ runBulkCommand }, { assertPinKeyAvailable, pinProblem, sendWithPinBlocks }, cards, { getSandboxPinKey }] = await Promise.all([
    import('../bulk-command.js'), import('../../pin/index.js'), import('../../api/cards.js'), import('../../api/pin-key.js'),
  ]);
  assertPinKeyAvailable(ctx);
  const client = await ctx.client();
  const programs = programLookup(ctx, async () => client);
  const now = ctx.clock.now();

  await runBulkCommand<CardRow>(ctx, { ...opts, fromFile: input.rowsFile }, {
    verb: 'create',
    label: 'creating',
    inputFlag: '--rows-from-file',
    stdinRows: 'CSV or NDJSON rows in, one card a row, e.g. cat staff.csv | …',
    columns: ['reference', ...known.filter((c) => c !== 'reference')],
    action: {
      async parse(value, row) {
        const given = value as Record<string, unknown>;
        for (const column of Object.keys(given)) if (!known.includes(column)) throw new Error(`${column}: unknown column (the columns are ${known.join(', ')})`);
        const text = (column: string): string | undefined => {
          const v = given[column];
          if (v === undefined || v === null || v === '') return undefined;
          if (typeof v !== 'string') throw new Error(`${column}: must be text`);
          return v;
        };
        const body: Json = {};
        for (const [column, field] of columns) {
          if (field.key === 'currency') continue;
          const raw = text(column) ?? (opts[field.key as keyof CreateOptions] as string | undefined);
          if (raw === undefined) {
            if (field.required) throw new Error(`${column}: is required (a column, or ${field.flag} for every row)`);
            continue;
          }
          setPath(body, field.path, (field.parse ?? trimmed)(column, raw));
        }
        const currency = text('currency');
        setPath(body, 'account.currency', currency === undefined ? defaultCurrency : await accountCurrency('currency', currency));
        for (const [column, key] of Object.entries(ROW_BOOLEANS)) {
          const v = given[column];
          const flag = key === 'pinEnabled' ? opts.pin !== false : key === 'enroll2FA' ? Boolean(opts.enroll2fa) : Boolean(opts.printCard);
          if (v === undefined || v === '') body[key] = flag;
          else if (v === true || v === 'true') body[key] = true;
          else if (v === false || v === 'false') body[key] = false;
          else throw new Error(`${column}: must be true or false`);
        }
        body.referenceCode ??= await rowReference(body);
        if (body.embossingName === undefined) {
          body.embossingName = fields.embossingName('embossing-name', nameOnCard(body));
          const cut = nameCutWarning(body, `row ${row}: `);
          if (cut) ctx.log.warn(cut);
        }
        const startDate = String(body.startDate ??= today(now));
        if (body.expiryDate === undefined || getPath(body, 'account.bankCode') === undefined) {
          const program = (await programs.get())?.find((p) => p.id === body.cardProgram || p._id === body.cardProgram);
          if (!program) throw new Error(`program: card program ${String(body.cardProgram)} not found`);
          body.expiryDate ??= defaultExpiry(startDate, program.maxExpiry);
          if (getPath(body, 'account.bankCode') === undefined) {
            if (!program.bankCode) throw new Error('bank-code: is required (the card program names none)');
            setPath(body, 'account.bankCode', program.bankCode);
          }
        }
        fields.assertEndAfterStart({ label: 'start-date', value: startDate }, { label: 'expiry-date', value: String(body.expiryDate) });
        let pin: string;
        if (pinColumn !== undefined && body.pinEnabled !== false) {
          const chosen = text(pinColumn)?.trim();
          if (chosen === undefined) throw new Error(`${pinColumn}: is required (--pins-from-column)`);
          const problem = pinProblem(chosen, { allowWeak: opts.allowWeakPin });
          if (problem) throw new Error(`${pinColumn}: ${problem}`);
          pin = chosen;
        } else {
          pin = await unusablePin();
        }
        return { body: await checkedFields(body, 'row'), pin };
      },
      idOf: (card) => card.body.referenceCode,
      // A settled row's id is its card's; the row itself is named by its reference.
      reportedIdOf: (entry) => (typeof entry.referenceCode === 'string' ? entry.referenceCode : undefined),
      describe: (card) => `create the card ${card.body.referenceCode} for ${card.body.customer.firstName} ${card.body.customer.lastName} (${card.body.cardProgram})`,
      async apply({ body, pin }, { signal, uncertain }) {
        const referenceCode = body.referenceCode;
        try {
          const result = await sendWithPinBlocks(ctx, () => getSandboxPinKey(client), [pin], ([block]) =>
            cards.createCardExactlyOnce(client, { ...body, defaultPIN: block! }, signal, { conflictNoted: true }));
          // appliedEarlier: this row's own attempt had applied and its answer was lost.
          return { outcome: 'done', id: result.response.data.id, details: { referenceCode } };
        } catch (error) {
          // The reference exists: created by an earlier run (or this row's lost attempt), once;
          // unless the card under it is not this row's.
          if (!(error instanceof CliError && error.status === 409)) throw explainPinKeyError(error);
          // The journal has no line for the 409 (conflictNoted): the note below says what it meant.
          const note = (outcome: 'done' | 'already' | 'refused', ids: string[], message?: string) =>
            client.note({ method: 'POST', path: '/institutions/cards', outcome, ids, reference: referenceCode, message });
          const found = await cards.findCardByReference(client, referenceCode, signal);
          if (!found) {
            note('refused', [], error.message);
            throw error;
          }
          const differ = differencesFromRow(found.data, body, (await programs.get()) ?? []);
          if (differ.length) {
            const refusal = new RejectedError(`reference ${referenceCode} is another card's (its ${differ.join(', ')} differ${differ.length === 1 ? 's' : ''} from this row's): not created`, {
              code: 'REFERENCE_TAKEN', hint: 'give the row a reference of its own',
            });
            note('refused', [], refusal.message);
            throw refusal;
          }
          // The row's card, but not as the row asks (suspended, expired…): a replacement row is not "already".
          const unusable = unusableForRow(found.data, body.status ?? 'active', now);
          if (unusable) {
            const refusal = new RejectedError(`reference ${referenceCode} is card ${found.data.id}, and ${unusable}: not created again`, {
              code: UNUSABLE_CARD.code, hint: UNUSABLE_CARD.hint(found.data.id),
            });
            note('refused', [found.data.id], refusal.message);
            throw refusal;
          }
          note(uncertain ? 'done' : 'already', [found.data.id]);
          return { outcome: uncertain ? 'done' : 'already', id: found.data.id, details: { referenceCode } };
        }
      },
    },
  });
}

/**
 * The reference of a row that names none: `row-` and 32 hex digits of the SHA-256 of the row's
 * card (its fields and the flags that fill them, keys sorted), before the defaults that change
 * from day to day (start date, the program's expiry) and without the PAN; the PIN is never in
 * the body. The same card in another file, or under another name, has the same reference.
 */
export async function rowReference(body: Json): Promise<string> {
  const { createHash } = await import('node:crypto');
  const { referenceCode: _none, pan: _pan, ...content } = body;
  return `row-${createHash('sha256').update(sortedJson(content)).digest('hex').slice(0, 32)}`;
}

function sortedJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  return `{${Object.keys(record).filter((k) => record[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${sortedJson(record[k])}`).join(',')}}`;
}

/** What makes a card the card of a row: the fields compared before a found card is "already". */
const ROW_IDENTITY = ['customer.firstName', 'customer.lastName', 'customer.emailAddress', 'customer.phoneNumber', 'account.number'] as const;

/** The fields in which a card found by a row's reference differs from the row (none: it is the row's card). */
export function differencesFromRow(card: Partial<Card>, body: CreateCardFields, programs: readonly CardProgram[]): string[] {
  const differ: string[] = ROW_IDENTITY.filter((path) => {
    const want = getPath(body, path);
    return want !== undefined && String(getPath(card, path) ?? '').trim().toLowerCase() !== String(want).trim().toLowerCase();
  });
  // A program may be named by its id or _id; the card's may be either, or the program itself.
  const wanted = body.cardProgram;
  const same = programs.find((p) => p.id === wanted || p._id === wanted);
  const names = new Set([wanted, ...(same ? [same.id, same._id] : [])]);
  const held = card.cardProgram;
  const heldIds = typeof held === 'string' ? [held] : held ? [held.id, held._id] : [];
  if (!heldIds.some((id) => names.has(id))) differ.unshift('cardProgram');
  return differ;
}
