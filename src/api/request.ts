// The shape of one request to the API, as every module of src/api builds it.

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type AuthMode = 'bearer' | 'apiKey' | 'none';

export interface ApiRequest {
  method: HttpMethod;
  /** Path relative to the base URL, e.g. `/institutions/cards`. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** Raw body text (already serialised), e.g. a form body for the token endpoint. */
  rawBody?: string;
  contentType?: string;
  /** Extra request headers (If-Match; `cardctl api -H`, already checked); the client's own headers win. */
  headers?: Record<string, string>;
  auth?: AuthMode;
  /** May this request be retried after a network error or 429/500/502/503/504? Defaults to GET only. */
  idempotent?: boolean;
  /**
   * Skip envelope unwrapping (token endpoint, simulator answers): false. 'any' (`cardctl api`):
   * an envelope is unwrapped, any other JSON is the data, a body that is not JSON comes back in
   * `raw` only (data undefined); error statuses are errors as always.
   */
  envelope?: boolean | 'any';
  signal?: AbortSignal;
  /** Why this mutation is made (a command's --reason): recorded with it in the audit journal. */
  reason?: string;
  /**
   * The answer's card numbers stay whole: only the sandbox's card pool (`simulate load --export
   * artillery`), which goes into a 0600 file and is never shown. Every other answer is masked.
   */
  clearCardData?: true;
  /**
   * A 409 is an answer the caller explains (a create under a reference that exists, in a bulk
   * run): the journal takes the caller's note (ApiClient.note: already there, with the id) rather
   * than a "rejected (409)" line for each row an idempotent rerun sends again.
   */
  conflictNoted?: boolean;
}
