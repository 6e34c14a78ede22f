// What the audit journal records of one logical mutating request: the API client hands it over
// (its Exchange narrows `method`), the journal writes it. Here, on the ground floor, so neither of
// the two imports the other.

/** One logical mutating request as the audit journal sees it: no headers, no bodies. */
export interface ExchangeFacts {
  method: string;
  path: string;
  /** null when no answer arrived (network failure). */
  status: number | null;
  message: string;
  data?: unknown;
  durationMs: number;
  /** The request's reason, when it gave one. */
  reason?: string;
  /**
   * `intent`: about to be sent (no answer yet); `outcome` (the default): the answer, or its
   * failure; `found`: what a look-up after a lost answer or a conflict found (nothing sent).
   */
  phase?: 'intent' | 'outcome' | 'found';
  /** Ids the request itself names (a simulation's card), or that a look-up found. */
  ids?: readonly string[];
  /** The card's reference (a create's referenceCode), when the request names one. */
  reference?: string;
}
