import type { Card, UpdateCustomerBody } from '../../../api/schemas.js';
import { defineCommand } from '../../../contract/command.js';
import { bodyFields, defineFlags, type FlagValues } from '../../../core/flags.js';
import type { Context } from '../../../contract/context.js';
import { UsageError } from '../../../core/errors.js';
import { getPath, setPath } from '../../../core/object-path.js';
import { ADDRESS_KEYS, applyFlags, assertKnownKeys, checkFileValues, readJsonFile, readJsonObject, type Json } from '../fields.js';
import { CARDHOLDER_FLAGS, customerPlacement, placeFlags, REASON_MAX_LENGTH } from '../../card-flags.js';
import { cardIdArgument, describeCard, printCard, type CardId } from '../common.js';
import { BULK_FLAGS, bulkFlagsGiven, checkBulkFlags } from '../../bulk-command.js';
import { terminalLine } from '../../../output/format.js';

export const CUSTOMER_UPDATE_FLAGS = defineFlags({
  ...placeFlags(CARDHOLDER_FLAGS, customerPlacement('')),
  ...BULK_FLAGS,
  fromFile: { type: 'string', value: 'file', complete: 'file', description: "with a card id: its JSON body (or - for stdin), flags override its fields; without one: many cards, a row each (id and the changed fields)" },
  reason: { type: 'string', value: 'text', maxLength: REASON_MAX_LENGTH, description: 'why (kept in the audit journal, one entry per card)' },
});

/** The Update Card Customer body's fields, each with its flag, path and validator. */
const CUSTOMER_FIELDS = bodyFields(CUSTOMER_UPDATE_FLAGS);

const UPDATE_KEYS = ['firstName', 'middleName', 'lastName', 'emailAddress', 'phoneNumber', 'dateOfBirth', 'address'] as const;

/**
 * The changes asked for (flags over the --from-file object), checked; nothing is sent. A file may
 * hold the Update Card Customer body itself or `{ "customer": { … } }`.
 */
export function customerChanges(opts: FlagValues<typeof CUSTOMER_UPDATE_FLAGS>, file: Json | undefined): Json {
  let changes: Json = {};
  if (file !== undefined) {
    const source = opts.fromFile === '-' ? '--from-file -' : `--from-file ${opts.fromFile}`;
    changes = file.customer && typeof file.customer === 'object' && !Array.isArray(file.customer) && Object.keys(file).length === 1
      ? (file.customer as Json)
      : file;
    assertKnownKeys(changes, UPDATE_KEYS, source);
    if (changes.address !== undefined) {
      if (!changes.address || typeof changes.address !== 'object' || Array.isArray(changes.address)) throw new UsageError(`${source}: address must be an object`);
      assertKnownKeys(changes.address as Json, ADDRESS_KEYS, `${source}: address`);
    }
    checkFileValues(changes, CUSTOMER_FIELDS, source);
  }
  applyFlags(changes, opts, CUSTOMER_FIELDS);
  return changes;
}

type CustomerUpdateOptions = FlagValues<typeof CUSTOMER_UPDATE_FLAGS>;

/** One card (its changes, unless they come from stdin: read by run()) or many. */
type CustomerUpdateInput = { opts: CustomerUpdateOptions; bulk: true } | { opts: CustomerUpdateOptions; bulk?: undefined; cardId: CardId; changes?: Json };

async function parseCustomerUpdate({ args, opts }: { args: [string | undefined]; opts: CustomerUpdateOptions }): Promise<CustomerUpdateInput> {
  if (args[0] === undefined && opts.fromFile !== undefined) {
    const flagged = CUSTOMER_FIELDS.filter((f) => opts[f.key as keyof typeof opts] !== undefined).map((f) => f.flag);
    if (flagged.length) throw new UsageError(`${flagged.join(', ')} describe one card: in a bulk update each row gives its own fields`);
    checkBulkFlags(opts);
    return { opts, bulk: true };
  }
  const stray = bulkFlagsGiven(opts);
  if (stray.length) throw new UsageError(`${stray.join(', ')} need --from-file without a card id (many cards)`);
  const cardId = cardIdArgument({ args });
  if (opts.fromFile === '-') return { opts, cardId };
  const file = opts.fromFile === undefined ? undefined : await readJsonFile(opts.fromFile);
  return { opts, cardId, changes: customerChanges(opts, file) };
}

/** The full body the API requires: the current customer with the changes laid over it. */
export function mergeCustomer(card: Pick<Card, 'customer'>, changes: Json): { body: UpdateCustomerBody; changed: string[] } {
  const current = card.customer ?? ({} as Card['customer']);
  const currentAddress = (current.address ?? {}) as Partial<Record<(typeof ADDRESS_KEYS)[number], string>>;
  const body: Json = {
    firstName: current.firstName ?? '',
    middleName: current.middleName ?? '',
    lastName: current.lastName ?? '',
    emailAddress: current.emailAddress ?? '',
    phoneNumber: current.phoneNumber ?? '',
    dateOfBirth: current.dateOfBirth ?? undefined,
    address: Object.fromEntries(ADDRESS_KEYS.map((key) => [key, currentAddress[key] ?? ''])),
  };
  const changed: string[] = [];
  const paths = [...UPDATE_KEYS.filter((k) => k !== 'address'), ...ADDRESS_KEYS.map((k) => `address.${k}`)];
  for (const path of paths) {
    const value = getPath(changes, path);
    if (value === undefined) continue;
    if (getPath(body, path) !== value) changed.push(path);
    setPath(body, path, value);
  }
  if (!body.dateOfBirth) {
    throw new UsageError('the card has no date of birth on record and the API requires one: give --birth-date', { hint: 'e.g. --birth-date 1990-05-17' });
  }
  // Every key comes from the current record or a validated flag; the API's schema check (ajv) stays off this path.
  return { body: body as UpdateCustomerBody, changed };
}

async function promptChanges(ctx: Context, card: Card): Promise<Json> {
  const changes: Json = {};
  ctx.io.err(`${terminalLine(`Updating the cardholder of card ${describeCard(card)}; press enter to keep a value.`)}\n`);
  for (const spec of CUSTOMER_FIELDS) {
    const current = getPath(card.customer, spec.path);
    const shown = typeof current === 'string' ? (spec.key === 'birthDate' ? current.slice(0, 10) : current) : '';
    const label = spec.prompt ?? spec.flag.replace(/^--/, '').replace(/-/g, ' ');
    const answer = await ctx.prompter.input(`${label.charAt(0).toUpperCase()}${label.slice(1)}:`, {
      default: shown || undefined,
      validate: (value) => {
        if (value === shown || (value === '' && !shown)) return true;
        try {
          (spec.parse ?? ((_l: string, v: string) => v))(spec.flag, value);
          return true;
        } catch (error) {
          return (error as Error).message;
        }
      },
    });
    if (answer === shown || (answer === '' && !shown)) continue;
    setPath(changes, spec.path, (spec.parse ?? ((_l: string, v: string) => v.trim()))(spec.flag, answer));
  }
  return changes;
}

export default defineCommand({
  name: 'update',
  mcp: 'write',
  output: async () => (await import('../../output-shapes.js')).cardShape(),
  summary: "update a card's cardholder details",
  description: `Give only what changes: the current record is fetched and merged, and the
full body the API requires is sent, for the version read: if the card changed
in between, nothing is written and the command exits 5 (run it again). --from-file takes JSON with the fields
of the Update Card Customer body (firstName, middleName, lastName,
emailAddress, phoneNumber, dateOfBirth, address{line1, line2, city, state,
country, postalCode}), or {"customer": {...}}; flags win over the file.

Many cards: --from-file FILE without a card id. Each row (.csv, .ndjson or a
.json array) has an id and only the fields that change, named like the flags
(email, first-name, address-line1, …; an empty CSV cell changes nothing). Each
card is read and updated for the version read, as for one card; a card that
already holds the values is "already". See \`cardctl help bulk\`.
On a terminal with nothing given, each field is asked with its current
value as the default. Against a production profile the card's last four
digits must be typed, or --yes --confirm-production given. --reason is kept
in the audit journal (\`cardctl history\`).`,
  args: [{ syntax: '[card-id]', description: 'card identifier (without one, --from-file holds many cards)' }],
  flags: CUSTOMER_UPDATE_FLAGS,
  examples: [
    'cardctl cards customer update 6650c0ffee --email ada.obi@example.com',
    'cardctl cards customer update 6650c0ffee --from-file customer.json',
    'cardctl cards customer update --from-file email-fixes.csv --reason "data fix" --report fixes.ndjson',
  ],
  parse: parseCustomerUpdate,
  async run(ctx, input) {
    if (input.bulk) return bulkUpdate(ctx, input.opts);
    const { cardId } = input;
    let changes = input.changes ?? customerChanges(input.opts, await readJsonObject(ctx, '-'));
    const nothingGiven = Object.keys(changes).length === 0;
    if (nothingGiven && !ctx.io.canPrompt) {
      throw new UsageError('nothing to update', {
        hint: 'give the fields that change, e.g. --email ada@example.com or --from-file customer.json (see --help)',
      });
    }
    const { getCard, updateCustomer, updateCustomerAt } = await import('../../../api/cards.js');
    const client = await ctx.client();
    const card = (await getCard(client, cardId, ctx.signal)).data;
    if (nothingGiven) changes = await promptChanges(ctx, card);
    const { body, changed } = mergeCustomer(card, changes);
    if (changed.length === 0) {
      ctx.log.info('nothing changed: the values given are the ones on record; nothing was sent');
      await printCard(ctx, { data: card, raw: JSON.stringify({ statusCode: 200, message: 'unchanged', data: card }), status: 200, headers: {}, durationMs: 0 });
      return;
    }
    const { confirmCardChange } = await import('../../../contract/guard.js');
    await confirmCardChange(ctx, {
      verb: 'update the cardholder of',
      cardId,
      askOnSandbox: false,
      load: async () => ({ lastFour: card.lastFour, label: describeCard(card) }),
    });
    // The body is the card as read with the changes laid over it: sent for that version only,
    // so a change made meanwhile by someone else is a conflict, never silently undone.
    const reasoned = client.withReason(input.opts.reason);
    const response = typeof card.__v === 'number'
      ? await updateCustomerAt(reasoned, cardId, body, card.__v, ctx.signal)
      : await updateCustomer(reasoned, cardId, body, ctx.signal);
    await printCard(ctx, response, (updated) => `Cardholder of card ${describeCard(updated)} updated (${changed.join(', ')})`);
  },
});

/** One row of a bulk update: the card and only what changes (an Update Card Customer body in part). */
interface CustomerChange {
  id: CardId;
  changes: Json;
}

/** A row's columns: `id` and the flags' names (email, first-name, …). */
const ROW_COLUMNS = new Map(CUSTOMER_FIELDS.map((field) => [field.flag.replace(/^--/, ''), field]));

async function bulkUpdate(ctx: Context, opts: CustomerUpdateOptions): Promise<void> {
  const [{ runBulkCommand }, { rowCardId }, { getCard, updateCustomerAt }] = await Promise.all([
    import('../../bulk-command.js'), import('../bulk.js'), import('../../../api/cards.js'),
  ]);
  const client = await ctx.client();
  const reasoned = client.withReason(opts.reason?.trim());
  await runBulkCommand<CustomerChange>(ctx, opts, {
    verb: 'update the cardholder of',
    label: 'updating',
    stdinRows: 'CSV or NDJSON rows in (id and the fields to change), e.g. cat fixes.csv | …',
    columns: ['id', ...ROW_COLUMNS.keys()],
    action: {
      parse(value) {
        const id = rowCardId(value);
        const changes: Json = {};
        for (const [column, given] of Object.entries(value as Record<string, unknown>)) {
          if (column === 'id' || given === '' || given === null) continue;
          const field = ROW_COLUMNS.get(column);
          if (!field) throw new Error(`${column}: unknown field (the fields are ${[...ROW_COLUMNS.keys()].join(', ')})`);
          if (typeof given !== 'string') throw new Error(`${column}: must be text`);
          setPath(changes, field.path, field.parse ? field.parse(column, given) : given.trim());
        }
        if (Object.keys(changes).length === 0) throw new Error('nothing to change: give the fields that change beside the id');
        return { id, changes };
      },
      idOf: (row) => row.id,
      describe: (row) => `update the cardholder of ${row.id}: ${JSON.stringify(row.changes)}`,
      async apply({ id, changes }, { signal, uncertain }) {
        const card = (await getCard(client, id, signal)).data;
        const { body, changed } = mergeCustomer(card, changes);
        // Already holding the values: changed by an earlier run, or by this row's lost attempt.
        if (changed.length === 0) return { outcome: uncertain ? 'done' : 'already' };
        await updateCustomerAt(reasoned, id, body, card.__v, signal);
        return { outcome: 'done', details: { changed } };
      },
    },
  });
}
