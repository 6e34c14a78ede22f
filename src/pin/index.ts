// PIN blocks: building (ISO 9564-1 formats 1 and 0), encrypting (RSA under the PIN key),
// reading PINs safely, and finding the key of the selected profile.
export { buildPinBlock, panBlockField, PIN_MAX_LENGTH, PIN_MIN_LENGTH, type PinBlockFormat } from './block.js';
export { encryptPinBlock, loadPinKey, PIN_BLOCK_FORMATS, PIN_CIPHERS, type EncryptedPinBlock, type PinCipher, type PinKey } from './encrypt.js';
export { createPinInput, type PinInput } from './input.js';
export { assertPinKeyAvailable, isSandbox, resolvePinSettings, type PinSettings, type PublishedPinKeySource } from './key.js';
export { assertAcceptablePin, pinProblem, pinWeakness } from './policy.js';
export { sendWithPinBlocks } from './send.js';
