// Ways a message can be signed wrongly, each one a handler must refuse: the sandbox sends them
// on request (the webhook fault `signature=…`) and `cardctl webhook certify` grades the refusal.
import { DEFAULT_TOLERANCE_SECONDS, signedHeaders, type SignOptions, type SignatureScheme } from './signature.js';

export const SIGNATURE_FAULTS = ['wrong-secret', 'stale-past', 'stale-future', 'missing', 'tampered'] as const;
export type SignatureFault = (typeof SIGNATURE_FAULTS)[number];

/** How far outside the tolerance a stale timestamp is, seconds: clearly stale, not a clock skew. */
export const STALE_MARGIN_SECONDS = 60;

export interface SignedMessage<M extends Record<string, string> = Record<string, string>> {
  /** The message as sent (with `tampered`, not the one signed) and its body. */
  message: M;
  body: string;
  /** The signature headers (none with `missing`). */
  headers: Record<string, string>;
  /** The value of the program's secret header, when it has one (the wrong secret with `wrong-secret`, none with `missing`). */
  secretHeader?: string;
}

/**
 * The body and signature headers of `message` signed with `secrets` (the current one first; two
 * during a rotation) in `scheme`, wrongly when a fault is given: other secrets, a timestamp past
 * the tolerance either way, no signature, or the amount (field 4) changed after signing.
 */
export function signMessage<M extends Record<string, string>>(scheme: SignatureScheme, secrets: readonly string[], message: M, fault: SignatureFault | undefined, options: SignOptions = {}): SignedMessage<M> {
  const body = JSON.stringify(message);
  const nowSeconds = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  const current = secrets[0] ?? '';
  const sign = (keys: readonly string[], at: number) => signedHeaders(scheme, keys, body, { ...options, nowSeconds: at });
  switch (fault) {
    case undefined:
      return { message, body, headers: sign(secrets, nowSeconds), secretHeader: current };
    case 'wrong-secret': {
      const others = secrets.map((secret) => `${secret}-not-the-programs-secret`);
      return { message, body, headers: sign(others, nowSeconds), secretHeader: others[0] ?? '' };
    }
    case 'stale-past':
    case 'stale-future': {
      const offset = (DEFAULT_TOLERANCE_SECONDS + STALE_MARGIN_SECONDS) * (fault === 'stale-past' ? -1 : 1);
      return { message, body, headers: sign(secrets, nowSeconds + offset), secretHeader: current };
    }
    case 'missing':
      return { message, body, headers: {} };
    case 'tampered': {
      const changed = tamperedMessage(message);
      return { message: changed, body: JSON.stringify(changed), headers: sign(secrets, nowSeconds), secretHeader: current };
    }
  }
}

/** The message with its amount (field 4) raised by one minor unit, as an attacker might after signing. */
export function tamperedMessage<M extends Record<string, string>>(message: M): M {
  const amount = message['4'];
  if (!amount || !/^\d+$/.test(amount)) return { ...message, '4': '000000000001' };
  const raised = (BigInt(amount) + 1n).toString().padStart(amount.length, '0');
  return { ...message, '4': raised };
}
