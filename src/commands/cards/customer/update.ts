import type { Card, UpdateCustomerBody } from '../../../api/schemas.js';
import { defineCommand } from '../../../core/command.js';
import { bodyFields, defineFlags, type FlagValues } from '../../../core/flags.js';
import type { Context } from '../../../core/context.js';
import { UsageError } from '../../../core/errors.js';
import { getPath, setPath } from '../../../output/format.js';
import { ADDRESS_KEYS, applyFlags, assertKnownKeys, checkFileValues, readJsonObject, type Json } from '../fields.js';
import { CARDHOLDER_FLAGS, customerPlacement, placeFlags } from '../../card-flags.js';
import { cardIdArgument, describeCard, printCard } from '../shared.js';

export const CUSTOMER_UPDATE_FLAGS = defineFlags({
  ...placeFlags(CARDHOLDER_FLAGS, customerPlacement('')),
  fromFile: { type: 'string', value: 'file', complete: 'file', description: 'JSON body (or - for stdin); flags override its fields' },
  reason: { type: 'string', value: 'text', description: 'why (kept in the audit journal)' },
});

/** The Update Card Customer body's fields, each with its flag, path and validator. */
const CUSTOMER_FIELDS = bodyFields(CUSTOMER_UPDATE_FLAGS);

const UPDATE_KEYS = ['firstName', 'middleName', 'lastName', 'emailAddress', 'phoneNumber', 'dateOfBirth', 'address'] as const;

/**
 * The changes asked for (flags over --from-file), checked; nothing is sent. A file may hold the
 * Update Card Customer body itself or `{ "customer": { … } }`.
 */
export async function parseCustomerChanges(ctx: Context, opts: FlagValues<typeof CUSTOMER_UPDATE_FLAGS>): Promise<Json> {
  let changes: Json = {};
  if (typeof opts.fromFile === 'string') {
    const source = opts.fromFile === '-' ? '--from-file -' : `--from-file ${opts.fromFile}`;
    const file = await readJsonObject(ctx, opts.fromFile);
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
  return { body: body as unknown as UpdateCustomerBody, changed };
}

async function promptChanges(ctx: Context, card: Card): Promise<Json> {
  const changes: Json = {};
  ctx.io.err(`Updating the cardholder of card ${describeCard(card)}; press enter to keep a value.\n`);
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
  summary: "update a card's cardholder details",
  description: `Give only what changes: the current record is fetched and merged, and the
full body the API requires is sent, for the version read: if the card changed
in between, nothing is written and the command exits 5 (run it again). --from-file takes JSON with the fields
of the Update Card Customer body (firstName, middleName, lastName,
emailAddress, phoneNumber, dateOfBirth, address{line1, line2, city, state,
country, postalCode}), or {"customer": {...}}; flags win over the file.
On a terminal with nothing given, each field is asked with its current
value as the default. Against a production profile the card's last four
digits must be typed, or --yes --confirm-production given. --reason is kept
in the audit journal (\`cardctl history\`).`,
  args: [{ syntax: '<card-id>', description: 'card identifier' }],
  flags: CUSTOMER_UPDATE_FLAGS,
  examples: ['cardctl cards customer update 6650c0ffee --email ada.obi@example.com', 'cardctl cards customer update 6650c0ffee --from-file customer.json'],
  async run(ctx, input) {
    const cardId = cardIdArgument(input);
    let changes = await parseCustomerChanges(ctx, input.opts);
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
    const { confirmCardChange } = await import('../../../core/guard.js');
    await confirmCardChange(ctx, {
      verb: 'update the cardholder of',
      cardId,
      askOnSandbox: false,
      load: async () => ({ lastFour: card.lastFour, label: describeCard(card) }),
    });
    // The body is the card as read with the changes laid over it: sent for that version only,
    // so a change made meanwhile by someone else is a conflict, never silently undone.
    const reasoned = client.withReason(typeof input.opts.reason === 'string' ? input.opts.reason : undefined);
    const response = typeof card.__v === 'number'
      ? await updateCustomerAt(reasoned, cardId, body, card.__v, ctx.signal)
      : await updateCustomer(reasoned, cardId, body, ctx.signal);
    await printCard(ctx, response, (updated) => `Cardholder of card ${describeCard(updated)} updated (${changed.join(', ')})`);
  },
});
