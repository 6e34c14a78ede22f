// What `simulate load --export artillery` writes and its processor reads: the file names, the
// two data files' shapes, and the counters the processor reports (which the script's `ensure`
// conditions name). One declaration for both sides.
import type { CardData } from '../../webhook-protocol/request.js';
import type { SignatureScheme } from '../../webhook-protocol/signature.js';
import type { Mix } from '../mix.js';

export const EXPORT_FILES = {
  script: 'cardctl-load.yml',
  processor: 'processor.cjs',
  traffic: 'traffic.json',
  cards: 'cards.json',
  readme: 'README.md',
} as const;

/** The environment variable the processor reads the webhook secret from; never a file of the export. */
export const SECRET_VARIABLE = 'CARDCTL_WEBHOOK_SECRET';

/** traffic.json: what each message is (the mix, channels in turn, the amount) and how it is signed. */
export interface Traffic {
  mix: Mix;
  channels: string[];
  /** Field 4, minor units on 12 digits. */
  amountField4: string;
  /** Field 49, ISO 4217 number. */
  currency: string;
  scheme: SignatureScheme;
  /** The program's webHookConfig.header: the header that carries the secret, when it has one. */
  secretHeader?: string;
  /** How long a reversal waits for an approval of this runner to reverse, ms: the network's deadline. */
  reversalWaitMs: number;
}

/** cards.json: the run's cards as the switch puts them into messages (sandbox test cards, written 0600). */
export interface CardPoolFile {
  sandboxTestData: string;
  cards: Array<{ id: string } & CardData>;
}

/**
 * The processor's counters (Artillery counters, summed over every runner). `requests`: messages
 * sent; `approved`, `declined`: valid answers; `failed`: requests without a valid answer, and the
 * same by cause (an HTTP error, an invalid reply, a timeout at the deadline, unreachable);
 * `notSent`: reversal turns with nothing approved to reverse. No name is part of another: the
 * `ensure` plugin finds them in its expressions by text.
 */
export const COUNTERS = {
  requests: 'cardctl.requests',
  approved: 'cardctl.approved',
  declined: 'cardctl.declined',
  failed: 'cardctl.no_valid_answer',
  httpError: 'cardctl.http_error',
  invalidReply: 'cardctl.invalid_reply',
  timeout: 'cardctl.timeout',
  unreachable: 'cardctl.unreachable',
  notSent: 'cardctl.not_sent',
} as const;
