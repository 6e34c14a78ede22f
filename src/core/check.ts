// One line of `cardctl doctor`: what was checked, whether it passed, and what to do when not.

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  /** What to do about a failed check. */
  fix?: string;
  /** Checks that cannot run (an earlier one failed, or there is nothing to tell by) are skipped, not failed. */
  skipped?: boolean;
  /** The setting a failed check is about (`doctor --deployment`: a dialect key such as params.cards.limit). */
  setting?: string;
  /** A value of that setting the deployment was seen to understand. */
  suggestion?: string | number;
}
