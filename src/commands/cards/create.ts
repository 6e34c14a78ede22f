// `cards create`: its flags, help and examples, and run(), which sends one card (exactly once, by
// its reference) or hands many to the bulk rows. The parse step is create-parse.ts, the prompts
// and defaults create-wizard.ts, the rows create-rows.ts.
import type { EncryptedPinBlock } from '../../api/schemas.js';
import { defineCommand } from '../../contract/command.js';
import { CliError, ExitCode, RejectedError, UsageError } from '../../core/errors.js';
import { describeCard, explainPinKeyError, printCard } from './common.js';
import { CREATE_FLAGS } from './create-flags.js';
import { cardOf, parseCreate } from './create-parse.js';
import { checkedFields, complete, generateReference, programLookup, unusablePin } from './create-wizard.js';
import { escapeControls } from '../../output/format.js';

export { CREATE_FLAGS, type CreateOptions } from './create-flags.js';

export default defineCommand({
  name: 'create',
  mcp: 'write',
  output: async () => (await import('../output-shapes.js')).cardShape(),
  summary: 'issue a card from a card program',
  description: `Issue a card. Fields come from flags, from --from-file (JSON in the API's
Create Card shape; flags win), or, on a terminal, from prompts for whatever
is missing. Without a terminal a missing required value is an error naming
its flag.

Defaults: the name on the card is the cardholder's name in capitals, the
currency 566, validity from today to the program's maximum, and the
program's bank code.

The default PIN comes from a hidden prompt (asked twice) or, with
--pin-stdin, from the first line of stdin; it is encrypted on this machine
before it is sent. A reference code is generated when none is given and
printed on stderr: reuse it with --reference to retry safely (a repeated
reference is refused, so a retry cannot issue a second card).

Many cards: --rows-from-file FILE, a row per card (.csv with a header,
.ndjson, or a .json array; --from-file stays one card's JSON body). Columns are
named like the flags (program, first-name, last-name, email, phone,
account-number, account-type, bank-code, currency, embossing-name,
start-date, expiry-date, reference, status, …; pin, enroll-2fa and print-card
are true/false); a flag given fills the rows that leave its column out or
empty, and the defaults above apply. Each row is created exactly once by its
reference: without a reference column it is derived from the row's content
(row-<32 hex>: the SHA-256 of its fields and the flags that fill them, never
the PIN or PAN), written to the report, so a rerun, a --resume or the same
rows in another file never issue a second card. A card found under a row's
reference is "already" only when it is that row's card (program, cardholder's
names, email and phone, account number); otherwise the row fails. PINs: a random PIN
per card, generated and encrypted here, never printed or stored; or, with
--pins-from-column NAME, that column's PIN (the file must not be readable by
group or others). See \`cardctl help bulk\`.`,
  flags: CREATE_FLAGS,
  examples: [
    'cardctl cards create                        # prompts for what is missing',
    'printf 4821 | cardctl cards create --program PROG --embossing-name "ADA OBI" --first-name Ada --last-name Obi \\\n      --email ada@example.com --phone +2348012345678 --account-number 0123456789 --account-type savings \\\n      --bank-code 058 --pin-stdin',
    'cardctl cards create --from-file card.json --pin-stdin < pin.txt',
    'cardctl cards create --rows-from-file staff.csv --program PROG --account-type current --report issued.ndjson',
  ],
  parse: parseCreate,
  async run(ctx, input) {
    if (input.kind === 'rows') {
      const { createRows } = await import('./create-rows.js');
      return createRows(ctx, input);
    }
    const opts = input.opts;
    const parsed = await cardOf(ctx, input);
    const programs = programLookup(ctx, () => ctx.client());
    const { prompted, program } = await complete(ctx, parsed, programs);
    if (!parsed.referenceGiven) parsed.body.referenceCode = await generateReference(ctx.clock.now());
    const body = await checkedFields(parsed.body, 'the card');

    // The PIN, read and checked before anything is sent.
    const { assertPinKeyAvailable, createPinInput, sendWithPinBlocks } = await import('../../pin/index.js');
    const { getSandboxPinKey } = await import('../../api/pin-key.js');
    let pin: string | undefined;
    if (!parsed.fileBlock) {
      assertPinKeyAvailable(ctx);
      pin = body.pinEnabled === false
        ? await unusablePin()
        : await createPinInput(ctx, { stdin: Boolean(opts.pinStdin), allowWeak: opts.allowWeakPin }).fresh('default PIN');
    }

    if (prompted) {
      const summary = [
        `program      ${program ? `${program.name} (${program.id})` : body.cardProgram}`,
        `cardholder   ${body.customer.firstName} ${body.customer.lastName} <${body.customer.emailAddress}>`,
        `on the card  ${body.embossingName}`,
        `account      ${body.account.number} (${body.account.type}, ${body.account.currency}, bank ${body.account.bankCode})`,
        `valid        ${body.startDate.slice(0, 10)} to ${body.expiryDate.slice(0, 10)}`,
      ];
      ctx.io.err(`${summary.map((line) => `  ${escapeControls(line)}`).join('\n')}\n`);
      if (!(await ctx.prompter.confirm('Create this card?', { default: true }))) throw new UsageError('cancelled: nothing was sent');
    }

    // The generated reference is what makes a retry safe: said before sending (so it is on the
    // screen even if this process dies), except with --quiet, where it is said only on a failure
    // that may need a retry (below).
    const referenceLine = `reference: ${body.referenceCode}, reuse it with --reference to retry safely\n`;
    if (!parsed.referenceGiven && !ctx.globals.quiet) ctx.io.err(referenceLine);

    const { createCardExactlyOnce } = await import('../../api/cards.js');
    const client = await ctx.client();
    // Exactly once: after a lost answer the card is looked up by its reference before any resend.
    const send = async (block: EncryptedPinBlock) => {
      const result = await createCardExactlyOnce(client, { ...body, defaultPIN: block }, ctx.signal);
      if (result.appliedEarlier) {
        ctx.log.info(`the first attempt had applied (its answer was lost): card with reference ${body.referenceCode} found, not sent again`);
      }
      return result.response;
    };
    let response;
    try {
      response = parsed.fileBlock
        ? await send(parsed.fileBlock)
        : await sendWithPinBlocks(ctx, () => getSandboxPinKey(client), [pin!], ([block]) => send(block!), { pan: body.pan });
    } catch (error) {
      if (!parsed.referenceGiven && ctx.globals.quiet && mayNeedRetry(error, body.referenceCode)) ctx.io.err(referenceLine);
      if (error instanceof CliError && error.code === 'CONFLICT') {
        throw new RejectedError(error.message, {
          code: 'CONFLICT',
          status: error.status,
          details: error.details,
          hint: `a card with reference ${body.referenceCode} may exist already (an earlier attempt that succeeded?): cardctl cards list --search ${body.referenceCode}`,
        });
      }
      throw explainPinKeyError(error);
    }
    await printCard(ctx, response, (card) => `Card ${describeCard(card)} created (id ${card.id})`);
  },
});

/**
 * A failure after which the card may or may not exist, so that a retry should reuse the reference:
 * network, server, rate limit or Ctrl-C (anything that is not a CliError yet, e.g. an abort), unless
 * the error's hint already names the reference.
 */
function mayNeedRetry(error: unknown, reference: string): boolean {
  if (!(error instanceof CliError)) return true;
  if (error.hint?.includes(reference)) return false;
  return error.exitCode === ExitCode.Network || error.exitCode === ExitCode.Server || error.exitCode === ExitCode.Interrupted || error.code === 'RATE_LIMITED';
}
