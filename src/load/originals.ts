// The approved authorizations and financials of a load run, oldest first, that its reversals
// reverse. A reversal due before one exists waits for one, so the run sends the mix it was asked
// for whatever the timing; it waits only while one may still come (an original in flight, or a
// sender free to send one), else it gives up and is not sent.

export class Originals {
  private readonly approved: string[] = [];
  private readonly waiting: Array<(id: string | undefined) => void> = [];
  private inFlight = 0;
  private activeSenders: number;

  /**
   * `senders`: what sends (the open loop's one schedule, the closed loop's N senders);
   * `waitBlocksSender`: a waiting reversal holds its sender (closed loop), or only itself (open loop).
   */
  constructor(senders: number, private readonly waitBlocksSender: boolean) {
    this.activeSenders = senders;
  }

  /** An authorization or financial was sent: its answer may approve it. */
  sent(): void {
    this.inFlight++;
  }

  /** Its answer: the transaction's id when approved, else undefined. */
  answered(approvedId: string | undefined): void {
    this.inFlight--;
    if (approvedId !== undefined) {
      const waiter = this.waiting.shift();
      if (waiter) waiter(approvedId);
      else this.approved.push(approvedId);
    }
    this.giveUpIfNoneCanCome();
  }

  /** A sender sends no more (its count or duration is over, or the run was stopped). */
  senderDone(): void {
    this.activeSenders--;
    this.giveUpIfNoneCanCome();
  }

  /** The oldest approved original not yet reversed, once there is one; undefined when none can come or on abort. */
  take(signal: AbortSignal): Promise<string | undefined> {
    const ready = this.approved.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    if (signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const waiter = (id: string | undefined) => {
        signal.removeEventListener('abort', onAbort);
        resolve(id);
      };
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        resolve(undefined);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
      this.giveUpIfNoneCanCome();
    });
  }

  private giveUpIfNoneCanCome(): void {
    if (this.inFlight > 0 || this.waiting.length === 0) return;
    const free = this.activeSenders - (this.waitBlocksSender ? this.waiting.length : 0);
    if (free > 0) return;
    for (const waiter of this.waiting.splice(0)) waiter(undefined);
  }
}
