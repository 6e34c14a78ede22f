// Two kinds of error. Services, rules and the authentication hooks throw a DomainError: what
// went wrong in the API's own terms (a rule refused, a record is missing, a version moved on),
// never an HTTP status. The server's error handler turns it into an ApiError with
// httpErrorOf(), the one place a problem gets its status and code, and answers the ApiError's
// envelope (docs/sandbox-api.md): {statusCode, message, error, errors?: [{field, message}], details?}, or with message, error and
// errors where a sandbox started with a dialect puts them (src/sandbox/dialect.ts).
import { DEFAULT_DIALECT, type Dialect } from '../api/dialect.js';
import { setPath } from '../core/object-path.js';

export type ErrorCode =
  | 'VALIDATION_ERROR' | 'INVALID_PIN_BLOCK' | 'UNKNOWN_KEY' | 'UNAUTHORIZED' | 'FORBIDDEN' | 'NOT_FOUND'
  | 'CONFLICT' | 'PIN_MISMATCH' | 'PIN_LOCKED' | 'RATE_LIMITED' | 'UNSUPPORTED_MEDIA_TYPE' | 'PAYLOAD_TOO_LARGE'
  | 'NOT_IMPLEMENTED' | 'INTERNAL' | 'STORAGE_UNAVAILABLE';

export interface FieldError {
  field: string;
  message: string;
}

/** The problems a domain rule can report, each answered with one status and code (see HTTP_OF). */
export type Problem =
  | 'invalid' | 'invalid-pin-block' | 'unknown-key' | 'unauthenticated' | 'not-permitted' | 'not-found' | 'conflict'
  | 'pin-mismatch' | 'pin-locked';

export class DomainError extends Error {
  constructor(
    readonly problem: Problem,
    message: string,
    readonly errors?: FieldError[],
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

const HTTP_OF: Readonly<Record<Problem, { statusCode: number; code: ErrorCode }>> = {
  'invalid': { statusCode: 400, code: 'VALIDATION_ERROR' },
  'invalid-pin-block': { statusCode: 400, code: 'INVALID_PIN_BLOCK' },
  'unknown-key': { statusCode: 400, code: 'UNKNOWN_KEY' },
  'unauthenticated': { statusCode: 401, code: 'UNAUTHORIZED' },
  'not-permitted': { statusCode: 403, code: 'FORBIDDEN' },
  'not-found': { statusCode: 404, code: 'NOT_FOUND' },
  'conflict': { statusCode: 409, code: 'CONFLICT' },
  'pin-mismatch': { statusCode: 422, code: 'PIN_MISMATCH' },
  'pin-locked': { statusCode: 423, code: 'PIN_LOCKED' },
};

/** An error as the API answers it (the envelope); built from a DomainError or by the HTTP layer itself. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: ErrorCode,
    message: string,
    readonly errors?: FieldError[],
    readonly details?: unknown,
  ) {
    super(message);
  }

  /** The body, with message, code and field errors where the dialect puts them (the default: message, error, errors). */
  toBody(at: Dialect['errors'] = DEFAULT_DIALECT.errors): Record<string, unknown> {
    const body: Record<string, unknown> = { statusCode: this.statusCode };
    setPath(body, at.message, this.message);
    setPath(body, at.code, this.code);
    if (this.errors) setPath(body, at.fields, this.errors);
    if (this.details !== undefined) body.details = this.details;
    return body;
  }
}

export function httpErrorOf(error: DomainError): ApiError {
  const { statusCode, code } = HTTP_OF[error.problem];
  return new ApiError(statusCode, code, error.message, error.errors, error.details);
}

/** A refused field: `message` reads "<field> <problem>". */
export function invalidField(field: string, problem: string): DomainError {
  const said = withoutField(field, problem);
  return new DomainError('invalid', fieldMessage(field, said), [{ field, message: said }]);
}

/**
 * "<field> <problem>", the one way a message names a refused field. A problem that already
 * begins with the field's name (a parser's own message: "amount 1e-7 has more decimals…")
 * keeps it once.
 */
export function fieldMessage(field: string, problem: string): string {
  return `${field} ${withoutField(field, problem)}`;
}

function withoutField(field: string, problem: string): string {
  return problem.startsWith(`${field} `) ? problem.slice(field.length + 1) : problem;
}

export function notFound(what: string, errors?: FieldError[]): DomainError {
  return new DomainError('not-found', `${what} not found`, errors);
}

/** A record that would clash with one that exists; `field` names the value already used. */
export function conflict(message: string, field?: string): DomainError {
  return new DomainError('conflict', message, field ? [{ field, message: 'is already used' }] : undefined);
}

export function unauthenticated(message: string): DomainError {
  return new DomainError('unauthenticated', message);
}

export function notPermitted(message: string, details?: unknown): DomainError {
  return new DomainError('not-permitted', message, undefined, details);
}
