// Encrypt PINs for one request and send it. When a sandbox answers UNKNOWN_KEY (it was restarted
// with a new key since the profile cached the old one), the key is fetched again and the request
// retried once; the PINs stay in memory only for the life of the command.
import { CliError } from '../core/errors.js';
import { encryptPinBlock, type EncryptedPinBlock } from './encrypt.js';
import { isSandbox, resolvePinSettings, type PinKeyContext, type PublishedPinKeySource } from './key.js';

export interface SendWithPinsOptions {
  /** Full card number, for format iso-0. */
  pan?: string;
}

export async function sendWithPinBlocks<T>(
  ctx: PinKeyContext,
  published: PublishedPinKeySource,
  pins: string[],
  send: (blocks: EncryptedPinBlock[]) => Promise<T>,
  options: SendWithPinsOptions = {},
): Promise<T> {
  const encryptAll = async (refresh: boolean) => {
    const settings = await resolvePinSettings(ctx, published, { refresh });
    const blocks: EncryptedPinBlock[] = [];
    for (const pin of pins) {
      blocks.push(await encryptPinBlock(pin, { key: settings.key, format: settings.format, cipher: settings.cipher, pan: options.pan }));
    }
    return blocks;
  };
  try {
    return await send(await encryptAll(false));
  } catch (error) {
    if (!(error instanceof CliError && error.code === 'UNKNOWN_KEY' && isSandbox(ctx.settings()))) throw error;
    ctx.log.verbose('the sandbox does not know the cached PIN key; fetching its current key and retrying');
    return await send(await encryptAll(true));
  }
}
