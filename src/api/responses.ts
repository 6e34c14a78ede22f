// Interpreting an answer: the envelope unwrapped into data, or the failure (an error status, a
// body that is not the API's, a network error) turned into a typed CliError with its hint.
import {
  AuthError,
  CliError,
  NetworkError,
  NotFoundError,
  RejectedError,
  ServerError,
  exitCodeForStatus,
  ExitCode,
  forbiddenHint,
} from '../core/errors.js';
import { isScope } from '../core/validate.js';
import { isObject } from '../core/is-object.js';
import { DEFAULT_DIALECT, readPath, type Dialect } from './dialect.js';
import type { ApiRequest } from './request.js';
import { LIST_BOUNDS } from '../core/list-bounds.js';

/** A list's paging metadata: the page count and total where the dialect has them; page and limit when the body says. */
export interface Pagination {
  page?: number;
  limit?: number;
  total?: number;
  pages: number;
}

export interface ApiResponse<T = unknown> {
  status: number;
  /** The envelope's `data` (or the whole parsed body when `envelope: false`). */
  data: T;
  message?: string;
  pagination?: Pagination;
  /** The body exactly as received (for `-o raw`). */
  raw: string;
  headers: Record<string, string | string[] | undefined>;
  durationMs: number;
}

/** What interpret() reads of an answer as received. */
export interface ReceivedResponse {
  status: number;
  /** The body as text. */
  text: string;
  headers: Record<string, string | string[] | undefined>;
  durationMs: number;
}

const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Turns a received response into data or a typed error: an error body's message, code and field
 * errors, and a list's paging metadata, are read where the dialect has them. Exported for the
 * fuzz tests.
 */
export function interpret<T>(
  req: Pick<ApiRequest, 'method' | 'path' | 'envelope'>,
  response: ReceivedResponse,
  dialect: Dialect = DEFAULT_DIALECT,
): ApiResponse<T> {
  const { status, text, headers, durationMs } = response;
  const where = `${req.method} ${req.path}`;
  let body: unknown;
  let parsed = false;
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
      parsed = true;
    } catch {
      parsed = false;
    }
  }

  if (status >= 400) {
    const envelope = parsed && isObject(body) ? body : undefined;
    const message = errorMessage(envelope, dialect)
      ?? (envelope ? `HTTP ${status}, with no message at "${dialect.errors.message}" of the error body (errors.message)` : describeNonJson(status, text, headers));
    throw apiError(status, message, envelope, where, headers, dialect);
  }
  if (!parsed && req.envelope === 'any') return { status, data: undefined as T, raw: text, headers, durationMs };
  if (!parsed && (status === 204 || status === 205) && text.trim() === '') {
    // No Content is a complete answer, not a broken one.
    return { status, data: undefined as T, raw: text, headers, durationMs };
  }
  if (!parsed) {
    if (text.trim() === '') {
      throw new ServerError(`${where}: the server answered ${status} with an empty body`, {
        hint: 'check the base URL (`cardctl auth status`); a proxy may be answering instead of the API',
        status,
      });
    }
    throw notJson(where, status, text, headers);
  }
  if (req.envelope === false) {
    return { status, data: body as T, raw: text, headers, durationMs };
  }
  if (!isObject(body) || !('data' in body || 'statusCode' in body || 'message' in body)) {
    if (req.envelope === 'any') return { status, data: body as T, raw: text, headers, durationMs };
    throw new ServerError(`${where}: the response is not in the API's envelope ({statusCode, message, data})`, { status });
  }
  const envelopeStatus = typeof body.statusCode === 'number' ? body.statusCode : status;
  if (envelopeStatus >= 400) {
    // A 200 whose envelope carries an error: believe the envelope.
    const message = errorMessage(body, dialect) ?? `error ${envelopeStatus}`;
    throw apiError(envelopeStatus, message, body, where, headers, dialect);
  }
  if (body.statusCode !== undefined && typeof body.statusCode !== 'number') {
    throw new ServerError(`${where}: the envelope's statusCode is not a number`, { status });
  }
  if (body.message !== undefined && typeof body.message !== 'string') {
    throw new ServerError(`${where}: the envelope's message is not a string`, { status });
  }
  return {
    status,
    data: body.data as T,
    message: body.message as string | undefined,
    pagination: paginationOf(body, dialect.paging),
    raw: text,
    headers,
    durationMs,
  };
}

/**
 * A member of an error body: at the dialect's path, else where the default dialect has it (a
 * deployment's gateway or proxy may answer some errors in the default shape).
 */
function errorMember(envelope: Record<string, unknown> | undefined, dialect: Dialect, member: keyof Dialect['errors']): unknown {
  if (!envelope) return undefined;
  const value = readPath(envelope, dialect.errors[member]);
  return value !== undefined ? value : readPath(envelope, DEFAULT_DIALECT.errors[member]);
}

function errorMessage(envelope: Record<string, unknown> | undefined, dialect: Dialect): string | undefined {
  const message = errorMember(envelope, dialect, 'message');
  return typeof message === 'string' && message ? message : undefined;
}

/** The paging metadata of a list body, where the dialect has it; none in the short-page style. */
function paginationOf(body: Record<string, unknown>, paging: Dialect['paging']): Pagination | undefined {
  if (paging.style !== 'metadata') return undefined;
  const pages = readPath(body, paging.pages);
  if (typeof pages !== 'number') return undefined;
  const total = readPath(body, paging.total);
  // page and limit: beside the page count, where the default dialect has them.
  const parent = paging.pages.split('.').slice(0, -1).join('.');
  const beside = parent ? readPath(body, parent) : body;
  const number = (key: string) => (isObject(beside) && typeof beside[key] === 'number' ? beside[key] as number : undefined);
  return { page: number('page'), limit: number('limit'), total: typeof total === 'number' ? total : undefined, pages };
}

function apiError(
  status: number,
  message: string,
  envelope: Record<string, unknown> | undefined,
  where: string,
  headers: Record<string, string | string[] | undefined>,
  dialect: Dialect,
): CliError {
  const codeValue = errorMember(envelope, dialect, 'code');
  const code = typeof codeValue === 'string' ? codeValue : undefined;
  // Field errors and other details (e.g. a PIN_MISMATCH's attemptsLeft) may come together:
  // keep both then. Alone, each keeps its own shape (the field list, or the details object).
  const fieldValue = errorMember(envelope, dialect, 'fields');
  const fieldErrors = Array.isArray(fieldValue) ? (fieldValue as unknown[]) : undefined;
  const otherDetails = envelope?.details;
  const details = fieldErrors && isObject(otherDetails)
    ? { ...otherDetails, errors: fieldErrors }
    : fieldValue ?? otherDetails ?? undefined;
  const base = { status, code, details, apiMessage: message };
  const exitCode = exitCodeForStatus(status);
  if (exitCode === ExitCode.Auth) {
    if (status === 403) {
      const missingScope = requiredScopeOf(otherDetails);
      return new AuthError(`forbidden: ${message}`, { ...base, code: code ?? 'FORBIDDEN', missingScope, hint: forbiddenHint(missingScope) });
    }
    return new AuthError(`unauthorized: ${message}`, {
      ...base,
      code: code ?? 'UNAUTHORIZED',
      hint: 'your token is missing, expired or revoked: run `cardctl login` (or `cardctl auth status` to see which profile is used)',
    });
  }
  if (exitCode === ExitCode.NotFound) return new NotFoundError(`not found: ${message}`, { ...base, code: code ?? 'NOT_FOUND' });
  if (exitCode === ExitCode.Rejected) {
    // For callers with their own retry loop (cards create): how long the server asked to wait.
    const retryAfter = status === 429 ? retryAfterMs(headers['retry-after']) : undefined;
    return new RejectedError(`rejected (${status}): ${message}${fieldSummary(fieldErrors, message)}`, {
      ...base,
      code: code ?? (status === 429 ? 'RATE_LIMITED' : 'REJECTED'),
      retryAfterMs: retryAfter,
      hint: status === 429 ? `rate limited; try again${retryAfter ? ` in ${Math.ceil(retryAfter / 1000)} s` : ' later'}`
        : TOO_LARGE_STATUSES.has(status) ? `the request line or headers are larger than the server takes: shorten the filters (at most ${LIST_BOUNDS.maxText} characters each) or the path`
        : undefined,
    });
  }
  return new ServerError(`server error (${status}) on ${where}: ${message}`, {
    ...base,
    code: code ?? 'SERVER_ERROR',
    hint: 'the service failed; try again later, and rerun with -v to see each attempt',
  });
}

/** URI Too Long and Request Header Fields Too Large: answered by the HTTP server itself, with no body. */
const TOO_LARGE_STATUSES = new Set([414, 431]);

/**
 * The scope a 403 names in `details.requiredScope` (the sandbox does; other deployments may
 * not), when it is a well-formed scope: it goes into the hint.
 */
function requiredScopeOf(details: unknown): string | undefined {
  const scope = isObject(details) ? details.requiredScope : undefined;
  return typeof scope === 'string' && isScope(scope) ? scope : undefined;
}

/** Up to three field errors after the message, leaving out what the message already says. */
function fieldSummary(fieldErrors: unknown[] | undefined, message: string): string {
  if (!fieldErrors?.length) return '';
  const described = fieldErrors
    .filter((d): d is { field: string; message: string } => isObject(d) && typeof d.field === 'string')
    .map((d) => `${d.field} ${d.message}`);
  const news = described.filter((part) => !message.includes(part));
  if (news.length === 0) return '';
  const parts = news.slice(0, 3);
  const more = fieldErrors.length - (described.length - news.length) - parts.length;
  return ` [${parts.join('; ')}${more > 0 ? ` (+${more} more)` : ''}]`;
}

/** The error for an answer (or a record of a streamed page, `text`) that is not JSON. */
function notJson(where: string, status: number, text: string, headers: Record<string, string | string[] | undefined>): ServerError {
  return new ServerError(`${where}: the server answered ${status} with a body that is not JSON (${describeNonJson(status, text, headers)})`, {
    hint: 'check the base URL (`cardctl auth status`); a proxy or load balancer may be answering instead of the API',
    status,
  });
}

function describeNonJson(status: number, text: string, headers: Record<string, string | string[] | undefined>): string {
  const type = String(headers['content-type'] ?? '');
  if (text.trim() === '') return `HTTP ${status} with an empty body`;
  if (/html/i.test(type) || /^\s*</.test(text)) {
    const title = /<title>([^<]{0,80})<\/title>/i.exec(text)?.[1]?.trim();
    return `HTTP ${status}, an HTML page${title ? ` ("${title}")` : ''}`;
  }
  if (/^\s*[{[]/.test(text)) return `HTTP ${status} with truncated or invalid JSON`;
  return `HTTP ${status}: ${text.trim().slice(0, 80).replace(/\s+/g, ' ')}`;
}

export function toNetworkError(error: unknown, timeoutMs: number): CliError {
  if (error instanceof CliError) return error;
  const err = error as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  const code = err?.code ?? err?.cause?.code ?? '';
  const name = err?.name ?? '';
  if (name === 'AbortError') return new NetworkError('request aborted', { code: 'ABORTED', cause: error });
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || name === 'TimeoutError') {
    return new NetworkError(`no answer within ${Math.round(timeoutMs / 1000)} s (timeout)`, {
      code: 'TIMEOUT',
      hint: 'the service is slow or unreachable; raise --timeout or check your network and proxy',
      cause: error,
    });
  }
  if (code === 'ECONNREFUSED') return new NetworkError('connection refused', { code, hint: 'is the base URL right, and is the server running? (`cardctl auth status`)', cause: error });
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new NetworkError('host not found (DNS)', { code, hint: 'check the base URL and your DNS/proxy settings', cause: error });
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return new NetworkError('connection reset before an answer arrived', { code: 'ECONNRESET', cause: error });
  if (/CERT|SSL|TLS|self.signed|UNABLE_TO_VERIFY/i.test(`${code} ${err?.message ?? ''}`)) {
    return new NetworkError(`TLS verification failed: ${err?.message ?? code}`, {
      code: 'TLS',
      hint: 'if the server uses a private CA, point NODE_EXTRA_CA_CERTS at its certificate',
      cause: error,
    });
  }
  return new NetworkError(`network error: ${err?.message ?? String(error)}`, { code: code || 'NETWORK', cause: error });
}

/** Parses Retry-After (seconds or an HTTP date) into milliseconds, capped. */
export function retryAfterMs(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  const seconds = Number(text);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const date = Date.parse(text);
  if (Number.isFinite(date)) return Math.min(Math.max(0, date - now), MAX_RETRY_AFTER_MS);
  return undefined;
}
