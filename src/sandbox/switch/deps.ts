// What the switch's functions are given: the store port, the clock, how the webhook is called,
// and where work that outlives a call goes (runtime.ts provides them in a running sandbox).
import type { ExchangeLog } from '../exchange-log.js';
import type { WebhookFaultController } from './webhook-faults.js';
import type { callWebhook, WebhookCallOptions } from './webhook.js';
import type { SwitchStore } from './store-port.js';

export interface SwitchDeps {
  store: SwitchStore;
  /** The switch's clock (runtime.ts: the sandbox's, moved by `simulate clock`). */
  now: () => Date;
  webhook?: WebhookCallOptions;
  /** Replaces the webhook call (tests). */
  callWebhook?: typeof callWebhook;
  /** Where each webhook call is recorded (none when absent). */
  exchanges?: ExchangeLog;
  /** Faults on the webhook path (none when absent). */
  webhookFaults?: WebhookFaultController;
  /**
   * Runs work that outlives the simulate call (advice delivery, a late reply read for a timeout
   * reversal); the owner awaits it before closing the store. Without it there is no such work.
   */
  background?: (work: Promise<void>) => void;
  /** Told when an advice delivery was not acknowledged (the owner schedules another). */
  onAdvicePending?: () => void;
}

