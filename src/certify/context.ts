// What a certification check is, and what it is given to run.
import type { Verdict } from './grade.js';
import type { CertifySession } from './session.js';

/** How long an advice may wait for its acknowledgement, retries included (the sandbox retries from 1 s, doubling: three attempts at least; certify's own sandbox retries from 0.5 s). */
export const ACKNOWLEDGEMENT_WINDOW_MS = 5_000;

export interface CheckContext {
  session: CertifySession;
  /** The network's deadline for a reply, ms. */
  deadlineMs: number;
  /** How long an advice may wait for its acknowledgement, ms. */
  windowMs: number;
  /** Response codes the rules file expects of a check, when it names it. */
  expect(check: string): readonly string[] | undefined;
  /**
   * Whether the rules file gives this decline as the handler's policy for authorizations (a code
   * it expects of `authorization-reply`): then a check whose setup it declined is skipped, not failed.
   */
  declinesByPolicy(code: string): boolean;
  latency: { perSecond: number; durationMs: number };
  signal: AbortSignal;
}

export interface Check {
  name: string;
  /** What a pass proves, one line (help, reports). */
  proves: string;
  /** Graded on a reply's response code, which a rules file may constrain. */
  ruled?: true;
  run(ctx: CheckContext): Promise<Verdict>;
}
