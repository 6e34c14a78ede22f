// Errors the sandbox answers with, in its one error envelope (docs/sandbox-api.md):
// {statusCode, message, error, errors?: [{field, message}], details?}.
export type ErrorCode =
  | 'VALIDATION_ERROR' | 'INVALID_PIN_BLOCK' | 'UNKNOWN_KEY' | 'UNAUTHORIZED' | 'FORBIDDEN' | 'NOT_FOUND'
  | 'CONFLICT' | 'PIN_MISMATCH' | 'PIN_LOCKED' | 'RATE_LIMITED' | 'UNSUPPORTED_MEDIA_TYPE' | 'PAYLOAD_TOO_LARGE'
  | 'NOT_IMPLEMENTED' | 'INTERNAL';

export interface FieldError {
  field: string;
  message: string;
}

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

  toBody(): Record<string, unknown> {
    return {
      statusCode: this.statusCode,
      message: this.message,
      error: this.code,
      ...(this.errors ? { errors: this.errors } : {}),
      ...(this.details !== undefined ? { details: this.details } : {}),
    };
  }
}

/** A 400 about one field: `message` reads "<field> <problem>". */
export function invalidField(field: string, problem: string): ApiError {
  return new ApiError(400, 'VALIDATION_ERROR', `${field} ${problem}`, [{ field, message: problem }]);
}

export function notFound(what: string): ApiError {
  return new ApiError(404, 'NOT_FOUND', `${what} not found`);
}

export function conflict(message: string, field?: string): ApiError {
  return new ApiError(409, 'CONFLICT', message, field ? [{ field, message: 'is already used' }] : undefined);
}

export function unauthorized(message: string): ApiError {
  return new ApiError(401, 'UNAUTHORIZED', message);
}

export function forbidden(message: string): ApiError {
  return new ApiError(403, 'FORBIDDEN', message);
}
