import { defineCommand } from '../../../contract/command.js';
import { validatePan } from '../../../core/validate.js';
import { cardIdArgument, describeCard, explainPinError, printCard } from '../common.js';
import { REASON_MAX_LENGTH } from '../../card-flags.js';

interface ResetOptions {
  pinStdin?: boolean;
  allowWeakPin?: boolean;
  pan?: string;
  reason?: string;
}

export default defineCommand({
  name: 'reset',
  mcp: 'write',
  output: async () => (await import('../../output-shapes.js')).cardShape(),
  summary: "reset a card's PIN (no old PIN; unlocks a locked PIN)",
  description: `Sets a new PIN without the current one and clears the wrong-attempt
counter (unlocking a locked PIN). The new PIN is asked twice with a hidden
prompt, or read from the first line of stdin with --pin-stdin; it is
encrypted on this machine and never accepted as a flag.

A PIN reset changes what the cardholder types at the till: on a terminal it
asks y/N first (--yes skips it); against a production profile the card's
last four digits must be typed, or --yes --confirm-production given.
--reason is kept in the audit journal (\`cardctl history\`).`,
  args: [{ syntax: '<card-id>', description: 'card identifier' }],
  flags: {
    pinStdin: { type: 'boolean', secret: true, description: 'read the new PIN from stdin' },
    allowWeakPin: { type: 'boolean', description: 'accept trivially weak PINs such as 1234' },
    pan: { type: 'string', value: 'pan', pan: true, description: 'full card number; only for profiles whose pinBlockFormat is iso-0' },
    reason: { type: 'string', value: 'text', maxLength: REASON_MAX_LENGTH, description: 'why (kept in the audit journal)' },
  },
  examples: ['cardctl cards pin reset 6650c0ffee', 'printf 7305 | cardctl cards pin reset 6650c0ffee --pin-stdin'],
  parse: (input) => ({ ...input, cardId: cardIdArgument(input), pan: input.opts.pan === undefined ? undefined : validatePan('--pan', input.opts.pan) }),
  async run(ctx, input) {
    const { cardId, pan } = input;
    const { assertPinKeyAvailable, createPinInput, sendWithPinBlocks } = await import('../../../pin/index.js');
    const { getSandboxPinKey } = await import('../../../api/pin-key.js');
    assertPinKeyAvailable(ctx);
    const newPin = await createPinInput(ctx, { stdin: Boolean(input.opts.pinStdin), allowWeak: input.opts.allowWeakPin }).fresh('new PIN');
    const { getCard, resetPin } = await import('../../../api/cards.js');
    const client = await ctx.client();
    const { confirmCardChange } = await import('../../../contract/guard.js');
    await confirmCardChange(ctx, {
      verb: 'reset the PIN of',
      cardId,
      askOnSandbox: true,
      load: async () => {
        const card = (await getCard(client, cardId, ctx.signal)).data;
        return { lastFour: card.lastFour, label: describeCard(card) };
      },
    });
    let response;
    try {
      response = await sendWithPinBlocks(ctx, () => getSandboxPinKey(client), [newPin], ([block]) => resetPin(client.withReason(input.opts.reason), cardId, block!, ctx.signal), { pan });
    } catch (error) {
      throw explainPinError(error, cardId);
    }
    await printCard(ctx, response, (card) => `PIN reset for card ${describeCard(card)}`);
  },
});
