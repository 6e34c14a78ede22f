import { defineCommand } from '../../../core/command.js';
import { validatePan } from '../../../core/validate.js';
import { cardIdArgument, describeCard, explainPinError, printCard } from '../shared.js';

interface ResetOptions {
  pinStdin?: boolean;
  allowWeakPin?: boolean;
  pan?: string;
}

export default defineCommand<ResetOptions>({
  name: 'reset',
  summary: "reset a card's PIN (no old PIN; unlocks a locked PIN)",
  description: `Sets a new PIN without the current one and clears the wrong-attempt
counter (unlocking a locked PIN). The new PIN is asked twice with a hidden
prompt, or read from the first line of stdin with --pin-stdin; it is
encrypted on this machine and never accepted as a flag.`,
  arguments: [{ syntax: '<card-id>', description: 'card identifier' }],
  options: (c) => c
    .option('--pin-stdin', 'read the new PIN from stdin')
    .option('--allow-weak-pin', 'accept trivially weak PINs such as 1234')
    .option('--pan <pan>', 'full card number; only for profiles whose pinBlockFormat is iso-0'),
  examples: ['cardctl cards pin reset 6650c0ffee', 'printf 7305 | cardctl cards pin reset 6650c0ffee --pin-stdin'],
  async run(ctx, input) {
    const cardId = cardIdArgument(input);
    const pan = input.opts.pan === undefined ? undefined : validatePan('--pan', input.opts.pan);
    const { assertPinKeyAvailable, createPinInput, sendWithPinBlocks } = await import('../../../pin/index.js');
    assertPinKeyAvailable(ctx);
    const newPin = await createPinInput(ctx, { stdin: Boolean(input.opts.pinStdin), allowWeak: input.opts.allowWeakPin }).fresh('new PIN');
    const { resetPin } = await import('../../../api/cards.js');
    const client = await ctx.client();
    let response;
    try {
      response = await sendWithPinBlocks(ctx, client, [newPin], ([block]) => resetPin(client, cardId, block!, ctx.signal), { pan });
    } catch (error) {
      throw explainPinError(error, cardId);
    }
    await printCard(ctx, response, (card) => `PIN reset for card ${describeCard(card)}`);
  },
});
