// `import` of one card given as flags: fields asked for or checked, the default PIN read, the card sent.
import type { Context } from '../contract/context.js';
import { CliError, InterruptedError, PartialFailureError, UsageError } from '../core/errors.js';
import type { RowRunSettings } from './bulk-command.js';
import type { SourceRow } from '../bulk/readers.js';
import type { ReportEntry } from '../bulk/import-report.js';
import type { SendResult } from '../bulk/import-runner.js';
import { CARD_FIELDS, requireApiKey, type ImportOptions } from './import-common.js';

/** Fields an import body may leave empty: not asked for, sent as "". */
const OPTIONAL_FIELDS = new Set(['middleName', 'addressLine2']);

/** A field of one card as its flag gives it; an optional one left out is "". */
function givenField(opts: ImportOptions, field: (typeof CARD_FIELDS)[number]): string | undefined {
  const given = opts[field.key as keyof ImportOptions] as string | undefined;
  return given === undefined && OPTIONAL_FIELDS.has(field.key) ? '' : given;
}

/** The fields of one card its flags leave out, in the body's order (what a terminal would be asked for). */
export async function missingFields(opts: ImportOptions): Promise<Array<(typeof CARD_FIELDS)[number]>> {
  return (await fieldsInBodyOrder()).filter((f) => givenField(opts, f) === undefined);
}

/** The card's identity, its holder, its validity, then the card itself: the order fields are asked for and named in. */
async function fieldsInBodyOrder(): Promise<Array<(typeof CARD_FIELDS)[number]>> {
  const { IMPORT_FIELD_PATHS } = await import('../bulk/row.js');
  return [...CARD_FIELDS].sort((a, b) => IMPORT_FIELD_PATHS.indexOf(a.path) - IMPORT_FIELD_PATHS.indexOf(b.path));
}

export function missingFieldsError(flags: string[]): UsageError {
  return new UsageError(`missing ${flags.join(', ')} (one card's fields; or import a file with --from-file)`, {
    hint: 'run `cardctl import --help` for every field',
  });
}

export async function importOne(ctx: Context, opts: ImportOptions, settings: RowRunSettings, institutionId?: string): Promise<void> {
  const [{ setPath }, { validateImportRow }] = await Promise.all([import('../core/object-path.js'), import('../bulk/row.js')]);
  const value: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const f of await fieldsInBodyOrder()) {
    let given = f.key === 'institutionId' ? institutionId : givenField(opts, f);
    if (given === undefined) {
      if (ctx.io.canPrompt) given = await ctx.prompter.input(f.prompt ?? f.flag);
      else {
        missing.push(f.flag);
        continue;
      }
    }
    setPath(value, f.path, given);
  }
  if (missing.length) throw missingFieldsError(missing);
  value.active = opts.active ?? true;
  value.returnSecure = Boolean(opts.returnSecure);
  // The fields are checked before the PIN is asked for, with the validators file rows use.
  const fieldsOnly = validateImportRow(value, { withoutPin: true, now: ctx.clock.now() });
  if (!fieldsOnly.ok) throw new UsageError(`invalid card: ${fieldsOnly.errors.map(flagNameOf).join('; ')}`);
  setPath(value, 'card.defaultPIN', await readDefaultPin(ctx, Boolean(opts.pinStdin), Boolean(opts.allowWeakPin)));
  const verdict = validateImportRow(value, { allowWeakPin: opts.allowWeakPin, now: ctx.clock.now() });
  if (!verdict.ok) throw new UsageError(`invalid card: ${verdict.errors.map(flagNameOf).join('; ')}`);
  if (ctx.globals.dryRun) {
    // The client prints the request (default PIN redacted) and stops the command.
    const { importCard } = await import('../api/import.js');
    await importCard((await ctx.client()).withReason(opts.reason), verdict.body, ctx.signal);
    return;
  }
  requireApiKey(ctx);
  const { confirmDestructive, isProduction } = await import('../contract/guard.js');
  if (isProduction(ctx)) {
    await confirmDestructive(ctx, { description: `import card ${verdict.body.realId}`, typedConfirmation: '1', typedLabel: 'the number of cards to import (1)' });
  }

  const { runImport } = await import('../bulk/import-runner.js');
  const { importCard, cardIdOf, findImportedCard } = await import('../api/import.js');
  const client = (await ctx.client()).withReason(opts.reason);
  let settled: { entry: ReportEntry; result?: SendResult; error?: unknown } | undefined;
  await runImport({
    ...settings,
    rows: (async function* () { yield { line: 1, value: verdict.body } as SourceRow; })(),
    async send(body, signal) {
      const response = await importCard(client, body, signal);
      return { cardId: cardIdOf(response.data), card: response.data };
    },
    async lookup(realId, signal) {
      const card = await findImportedCard(client, realId, signal);
      return card ? { cardId: cardIdOf(card), card } : undefined;
    },
    onSettled: (entry, _stats, result, error) => (settled = { entry, result, error }),
  });
  if (!settled) throw new InterruptedError();
  const { entry, result, error } = settled;
  if (entry.outcome === 'failed') throw error instanceof CliError ? error : new PartialFailureError(entry.error ?? 'import failed');
  const out = ctx.output();
  if (entry.outcome === 'exists') out.success(`card ${entry.realId} was already imported${entry.cardId ? ` (card ${entry.cardId})` : ''}`);
  else out.success(`imported card ${entry.realId}${entry.cardId ? ` as ${entry.cardId}` : ''}`);
  const card = result?.card;
  if (card && typeof card === 'object') await out.record(card, { idPath: 'id' });
  else await out.record({ realId: entry.realId, outcome: entry.outcome, cardId: entry.cardId ?? null }, { idPath: 'cardId' });
}

/**
 * The fields of one card given as flags, checked by the validators file rows use (the parse
 * step): a field left out is asked for on a terminal or named as missing by importOne.
 */
export async function checkGivenFields(opts: ImportOptions, now: Date): Promise<void> {
  const [{ setPath }, { validateImportRow }] = await Promise.all([import('../core/object-path.js'), import('../bulk/row.js')]);
  const value: Record<string, unknown> = { active: opts.active ?? true, returnSecure: Boolean(opts.returnSecure) };
  const given = new Set<string>();
  for (const f of CARD_FIELDS) {
    const text = opts[f.key as keyof ImportOptions];
    if (typeof text !== 'string') continue;
    setPath(value, f.path, text);
    given.add(f.path);
  }
  const verdict = validateImportRow(value, { withoutPin: true, now });
  if (verdict.ok) return;
  const errors = verdict.errors.filter((error) => given.has(error.split(':', 1)[0]!));
  if (errors.length) throw new UsageError(`invalid card: ${errors.map(flagNameOf).join('; ')}`);
}

/** "card.bin: …" → "--bin: …" for one card given as flags. */
function flagNameOf(message: string): string {
  const field = message.split(':', 1)[0]!;
  const flag = CARD_FIELDS.find((f) => f.path === field)?.flag;
  return flag ? `${flag}${message.slice(field.length)}` : message;
}

/** The default PIN, read and checked exactly as `cards create` reads a new PIN. */
async function readDefaultPin(ctx: Context, fromStdin: boolean, allowWeak: boolean): Promise<string> {
  // Without --pin-stdin there is a terminal to ask on (the parse step).
  const { createPinInput } = await import('../pin/input.js');
  return createPinInput(ctx, { stdin: fromStdin, allowWeak }).fresh('default PIN');
}
