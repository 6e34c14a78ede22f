// The sandbox as the certification drives it, over its HTTP API (an in-process one or a running
// one): a card program pointed at the webhook under test, a card, the messages of each check,
// the webhook faults, and the transactions as the sandbox recorded them. Nothing here asks the
// handler anything: every fact a check grades is what the sandbox sent, got back and retried.
import type { ApiClient } from '../api/client.js';
import type { CardProgram, Lifecycle, LifecycleBody, SimulateBody, SimulateResult, Transaction } from '../api/schemas.js';
import { getLifecycle, repeatMessage, sendLifecycleMessage, simulate } from '../api/simulate.js';
import { withWebhookFaults } from '../api/webhook-faults.js';
import { encryptPinBlock, loadPinKey } from '../pin/encrypt.js';
import { webhookTypeOfScheme, type SignatureScheme } from '../webhook-protocol/signature.js';

export interface SessionTarget {
  url: string;
  secret: string;
  scheme: SignatureScheme;
  seed: number;
}

const POLL_MS = 100;

export class CertifySession {
  private constructor(
    private readonly client: ApiClient,
    readonly target: SessionTarget,
    readonly programId: string,
    readonly cardId: string,
    private readonly signal: AbortSignal,
  ) {}

  /** A new card program whose webhook is the target (its secret, its scheme, no secret header) and a card of it. */
  static async open(client: ApiClient, target: SessionTarget, signal: AbortSignal): Promise<CertifySession> {
    const program = await client.request<CardProgram>({
      method: 'POST', path: '/sandbox/card-programs', idempotent: false, signal,
      body: {
        name: `cardctl webhook certify (seed ${target.seed})`,
        webHookConfig: { url: target.url, secret: target.secret, type: webhookTypeOfScheme(target.scheme), header: '' },
        standIn: { mode: 'decline', maxAmount: 0, dailyAmount: 0 },
        // The latency run sends many authorizations on one card: its daily limits must not decide them.
        channels: { pos: { enabled: true, dailyLimit: { count: 1_000_000, amount: 1_000_000_000 } } },
      },
    });
    const programId = String(program.data?.id ?? '');
    const keyAnswer = await client.request<{ publicKey?: string; data?: { publicKey?: string } }>({ method: 'GET', path: '/sandbox/pin-key', auth: 'none', envelope: false, signal });
    const key = await loadPinKey(String(keyAnswer.data?.publicKey ?? keyAnswer.data?.data?.publicKey ?? ''), "the sandbox's PIN key");
    const now = new Date();
    const card = await client.request<{ id: string }>({
      method: 'POST', path: '/institutions/cards', idempotent: false, signal,
      body: {
        cardProgram: programId,
        referenceCode: `CERTIFY-${target.seed}-${now.getTime().toString(36).toUpperCase()}`,
        pinEnabled: true,
        defaultPIN: await encryptPinBlock('4821', { key }),
        account: { currency: '566', bankCode: '044', type: 'savings', number: '0123456789' },
        customer: {
          firstName: 'Ada', middleName: '', lastName: 'Obi', emailAddress: 'ada.obi@example.com', phoneNumber: '+2348012345678',
          dateOfBirth: '1990-12-10T00:00:00.000Z', address: { line1: '1 Marina', line2: '', city: 'Lagos', state: 'Lagos', country: 'NG', postalCode: '100001' },
        },
        embossingName: 'ADA OBI',
        startDate: now.toISOString(),
        expiryDate: new Date(Date.UTC(now.getUTCFullYear() + 3, now.getUTCMonth(), 28)).toISOString(),
      },
    });
    return new CertifySession(client, target, programId, String(card.data?.id ?? ''), signal);
  }

  /** An authorization (0100) of `amount` major units, forwarded to the webhook. */
  authorize(amount: number, extra: Partial<SimulateBody> = {}): Promise<SimulateResult> {
    return this.simulate({ intent: 'authorization', processingFlow: 'purchase', amount, cardId: this.cardId, ...extra });
  }

  async simulate(body: SimulateBody): Promise<SimulateResult> {
    return (await simulate(this.client, { ...body, responseMode: 'forward' }, { signal: this.signal })).data!.data;
  }

  async lifecycleMessage(body: LifecycleBody): Promise<SimulateResult> {
    return (await sendLifecycleMessage(this.client, { ...body, responseMode: 'forward' }, { signal: this.signal })).data!.data;
  }

  async repeat(id: string): Promise<SimulateResult> {
    return (await repeatMessage(this.client, id, { forward: true, signal: this.signal })).data!.data;
  }

  async transaction(id: string): Promise<Transaction> {
    return (await this.client.request<Transaction>({ method: 'GET', path: `/institutions/transactions/${encodeURIComponent(id)}`, signal: this.signal })).data!;
  }

  async lifecycle(id: string): Promise<Lifecycle> {
    return (await getLifecycle(this.client, id, { signal: this.signal })).data!;
  }

  /**
   * Runs the session's checks with no webhook faults on its program but those a check installs:
   * the faults are the program's own, so its institution's, and those of another run on the same
   * sandbox (its own program), never reach the handler under test, nor these anyone else's.
   * Afterwards the program has its institution's again.
   */
  isolated<T>(work: () => Promise<T>): Promise<T> {
    return withWebhookFaults(this.client, { spec: '', seed: this.target.seed, programId: this.programId }, work, this.signal);
  }

  /** Runs `work` with these webhook faults (text form) on the session's program, then puts back none. */
  withFaults<T>(spec: string, work: () => Promise<T>): Promise<T> {
    return withWebhookFaults(this.client, { spec, seed: this.target.seed, programId: this.programId }, work, this.signal);
  }

  async setStandIn(mode: 'decline' | 'approve'): Promise<void> {
    await this.client.request({ method: 'PUT', path: `/sandbox/card-programs/${encodeURIComponent(this.programId)}`, idempotent: true, signal: this.signal,
      body: { standIn: mode === 'approve' ? { mode, maxAmount: 1_000, dailyAmount: 100_000 } : { mode, maxAmount: 0, dailyAmount: 0 } } });
  }

  /**
   * The transaction once `done` holds of it, or as it is when `windowMs` has passed: the sandbox
   * retries deliveries on its own meanwhile.
   */
  async waitFor(id: string, done: (tx: Transaction) => boolean, windowMs: number): Promise<Transaction> {
    const until = Date.now() + windowMs;
    for (;;) {
      const tx = await this.transaction(id);
      if (done(tx) || Date.now() >= until || this.signal.aborted) return tx;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }

  /** The first message of `kind` linked to `originalId`, once the sandbox has recorded one (within the window). */
  async linkedMessage(originalId: string, kind: string, windowMs: number): Promise<string | undefined> {
    const until = Date.now() + windowMs;
    for (;;) {
      const found = (await this.lifecycle(originalId)).messages.find((message) => message.messageKind === kind);
      if (found || Date.now() >= until || this.signal.aborted) return found?.transactionId;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}
