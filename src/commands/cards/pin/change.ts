import { defineCommand } from '../../../contract/command.js';
import { CliError, UsageError } from '../../../core/errors.js';
import { validatePan } from '../../../core/validate.js';
import { cardIdArgument, describeCard, explainPinError, printCard } from '../common.js';
import { isObject } from '../../../core/is-object.js';

interface ChangeOptions {
  pinStdin?: boolean;
  allowWeakPin?: boolean;
  pan?: string;
}

export default defineCommand({
  name: 'change',
  mcp: 'never',
  output: async () => (await import('../../output-shapes.js')).cardShape(),
  summary: "change a card's PIN (old PIN required)",
  description: `Asks for the current PIN and the new PIN (twice) with hidden prompts, or
reads them from stdin with --pin-stdin: the current PIN on the first line,
the new PIN on the second. PINs have 4 to 12 digits and are encrypted on
this machine; they are never accepted as flags or environment variables.
After 3 wrong current PINs the PIN is locked until \`cardctl cards pin reset\`.`,
  args: [{ syntax: '<card-id>', description: 'card identifier' }],
  flags: {
    pinStdin: { type: 'boolean', secret: true, description: 'read current and new PIN from stdin, one per line' },
    allowWeakPin: { type: 'boolean', description: 'accept trivially weak PINs such as 1234' },
    pan: { type: 'string', value: 'pan', pan: true, description: 'full card number; only for profiles whose pinBlockFormat is iso-0' },
  },
  examples: ['cardctl cards pin change 6650c0ffee', "printf '4821\\n7305\\n' | cardctl cards pin change 6650c0ffee --pin-stdin"],
  parse: (input) => ({ ...input, cardId: cardIdArgument(input), pan: input.opts.pan === undefined ? undefined : validatePan('--pan', input.opts.pan) }),
  async run(ctx, input) {
    const { cardId, pan } = input;
    const { assertPinKeyAvailable, createPinInput, sendWithPinBlocks } = await import('../../../pin/index.js');
    const { getSandboxPinKey } = await import('../../../api/pin-key.js');
    assertPinKeyAvailable(ctx);
    const pins = createPinInput(ctx, { stdin: Boolean(input.opts.pinStdin), allowWeak: input.opts.allowWeakPin });
    const oldPin = await pins.existing('current PIN');
    const newPin = await pins.fresh('new PIN');
    if (oldPin === newPin) throw new UsageError('the new PIN is the same as the current PIN; nothing was sent');
    const { changePin, getCard } = await import('../../../api/cards.js');
    const client = await ctx.client();
    let response;
    try {
      response = await sendWithPinBlocks(ctx, () => getSandboxPinKey(client), [oldPin, newPin], ([oldPIN, newPIN]) => changePin(client, cardId, { oldPIN: oldPIN!, newPIN: newPIN! }, ctx.signal), { pan });
    } catch (error) {
      let explained = error;
      if (error instanceof CliError && error.code === 'PIN_MISMATCH' && !hasAttempts(error.details)) {
        // The answer did not say how many attempts are left: the card's pinAttempts does.
        const card = await getCard(client, cardId, ctx.signal).then((r) => r.data).catch(() => undefined);
        if (card && typeof card.pinAttempts === 'number') {
          explained = new CliError(error.exitCode, error.message, { code: error.code, status: error.status, details: { ...(isObject(error.details) ? error.details : {}), pinAttempts: card.pinAttempts } });
        }
      }
      throw explainPinError(explained, cardId);
    }
    await printCard(ctx, response, (card) => `PIN changed for card ${describeCard(card)}`);
  },
});


function hasAttempts(details: unknown): boolean {
  return isObject(details) && ['attemptsLeft', 'attemptsRemaining', 'remainingAttempts', 'pinAttempts'].some((k) => typeof details[k] === 'number');
}
