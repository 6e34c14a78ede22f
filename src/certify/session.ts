// The sandbox as the certification drives it, over its HTTP API (an in-process one or a running
// one): a card program pointed at the webhook under test, a card, the messages of each check,
// the webhook faults, and the transactions as the sandbox recorded them. Nothing here asks the
// handler anything: every fact a check grades is what the sandbox sent, got back and retried.
import { randomInt } from 'node:crypto';
import type { ApiClient } from '../api/client.js';
import type { CardProgram, Lifecycle, LifecycleBody, SimulateBody, SimulateResult, Transaction, WebhookExchange } from '../api/schemas.js';
import { getLifecycle, repeatMessage, sendLifecycleMessage, simulate } from '../api/simulate.js';
import { listAllWebhookExchanges } from '../api/webhook-exchanges.js';
import { withWebhookFaults } from '../api/webhook-faults.js';
import { encryptPinBlock, loadPinKey } from '../pin/encrypt.js';
import { webhookTypeOfScheme, type SignatureScheme } from '../webhook-protocol/signature.js';

export interface SessionTarget {
  url: string;
  secret: string;
  scheme: SignatureScheme;
  seed: number;
  /** The secret the handler should no longer accept (a rotation's window closed): the refuse-retired-secret check. */
  retiredSecret?: string | undefined;
  /**
   * Give every message a STAN and RRN of the session's own (a shared sandbox, -p, numbers its
   * messages from where it stands, which another run may already have shown the handler).
   */
  freshStans?: boolean;
}

/** An exchange of the session with the handler, and the check whose message it was. */
export interface OwnedExchange {
  check: string;
  exchange: WebhookExchange;
  /** Its message was sent to be refused (signed only with a retired secret): no answer is its right answer. */
  refusalExpected: boolean;
}

const POLL_MS = 100;

export class CertifySession {
  /** The check each transaction was sent for (its linked messages, by their original, go with it). */
  private readonly owners = new Map<string, string>();
  /** The check running now. */
  private current = '';
  /** Transactions sent to be refused (expectRefusal). */
  private readonly refusals = new Set<string>();
  /** Exchanges already handed out by newExchanges(). */
  private readonly seen = new Set<string>();
  /** When the session began: its exchanges are those since. */
  private readonly since = new Date(Date.now() - 1_000).toISOString();
  /** The next STAN of the session's own numbering (freshStans), from a random point of the range. */
  private nextStan = randomInt(1, 900_000);
  private readonly rrnPrefix = String(randomInt(0, 100_000)).padStart(5, '0');

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
    return this.owned((await simulate(this.client, { ...body, overrides: this.numbered(body.overrides), responseMode: 'forward' }, { signal: this.signal })).data!.data);
  }

  async lifecycleMessage(body: LifecycleBody): Promise<SimulateResult> {
    return this.owned((await sendLifecycleMessage(this.client, { ...body, overrides: this.numbered(body.overrides), responseMode: 'forward' }, { signal: this.signal })).data!.data);
  }

  /** A STAN and RRN no run has used: random, of the day's range (fields 11, 37). */
  freshNumbers(): Record<'11' | '37', string> {
    const stan = String(this.nextStan).padStart(6, '0');
    this.nextStan = (this.nextStan % 999_999) + 1;
    return { '11': stan, '37': `9${this.rrnPrefix}${stan}` };
  }

  /** The overrides of a message, with the session's own STAN and RRN when it numbers its messages (and the caller did not). */
  private numbered(overrides: Record<string, string> | undefined): Record<string, string> | undefined {
    if (!this.target.freshStans || overrides?.['11'] !== undefined) return overrides;
    return { ...overrides, ...this.freshNumbers() };
  }

  /** Marks the check now running: the messages sent from here on are its own. */
  beginCheck(name: string): void {
    this.current = name;
  }

  /** Marks a message sent to be refused: its exchange may go unanswered (the faults of the sandbox mark their own). */
  expectRefusal(result: SimulateResult): SimulateResult {
    this.refusals.add(result.transactionId);
    return result;
  }

  private owned(result: SimulateResult): SimulateResult {
    this.owners.set(result.transactionId, this.current);
    return result;
  }

  /**
   * The session's exchanges with the handler not handed out before, oldest first, each with the
   * check whose message it was (a linked message's by its original; else the check running now).
   */
  async newExchanges(): Promise<OwnedExchange[]> {
    const found: WebhookExchange[] = [];
    for await (const page of listAllWebhookExchanges(this.client, { since: this.since, limit: 100 }, this.signal)) {
      for (const exchange of page.records()) if (exchange.cardId === this.cardId && !this.seen.has(exchange.id)) found.push(exchange);
    }
    found.reverse();
    return found.map((exchange) => {
      this.seen.add(exchange.id);
      const check = this.owners.get(exchange.transactionId ?? '') ?? this.owners.get(exchange.originalId ?? '') ?? this.current;
      return { check, exchange, refusalExpected: this.refusals.has(exchange.transactionId ?? '') };
    });
  }

  /** Every exchange of one transaction (and its linked messages), oldest first. */
  async exchangesOf(transactionId: string): Promise<WebhookExchange[]> {
    const found: WebhookExchange[] = [];
    for await (const page of listAllWebhookExchanges(this.client, { transactionId, limit: 100 }, this.signal)) found.push(...page.records());
    return found.reverse();
  }

  /**
   * Signs from now on with these secrets, the first the current one: two make a rotation window
   * (both sign every message), one ends it at once.
   */
  async signWith(secrets: readonly [string] | readonly [string, string]): Promise<void> {
    const put = (webHookConfig: Record<string, string>) => this.client.request({
      method: 'PUT', path: `/sandbox/card-programs/${encodeURIComponent(this.programId)}`, idempotent: true, signal: this.signal, body: { webHookConfig },
    });
    const past = new Date(0).toISOString();
    if (secrets.length === 1) {
      await put({ secret: secrets[0], previousSecretUntil: past });
      return;
    }
    await put({ secret: secrets[1], previousSecretUntil: past });
    await put({ secret: secrets[0], previousSecretUntil: new Date(Date.now() + 10 * 60_000).toISOString() });
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
