// The exit-code contract (`cardctl help exit-codes`) lives here and only here. Commands throw typed errors;
// the entry point (src/app/run-cli.ts) is the only place that turns them into an exit code.

export const ExitCode = {
  Ok: 0,
  Internal: 1,
  Usage: 2,
  Auth: 3,
  NotFound: 4,
  Rejected: 5,
  Network: 6,
  Server: 7,
  Partial: 8,
  Interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export interface CliErrorOptions {
  /** A short machine-readable code, e.g. `VALIDATION_ERROR`, `USAGE`, `NETWORK`. */
  code?: string;
  /** One line telling the user what to do next. */
  hint?: string;
  /** HTTP status, when the error came from the API. */
  status?: number;
  /** Structured detail (field errors, attempts left, …) for `-o json` error output. */
  details?: unknown;
  /** The API's own message, as it sent it (the CLI's `message` wraps it for people). */
  apiMessage?: string;
  /** How long the server asked to wait before trying again (429 Retry-After), in milliseconds. */
  retryAfterMs?: number;
  cause?: unknown;
}

/** Base of every error the CLI reports on purpose. `message` is one line, already for people. */
export class CliError extends Error {
  readonly exitCode: ExitCodeValue;
  readonly code: string;
  readonly hint?: string;
  readonly status?: number;
  readonly details?: unknown;
  readonly apiMessage?: string;
  readonly retryAfterMs?: number;

  constructor(exitCode: ExitCodeValue, message: string, options: CliErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.code = options.code ?? defaultCodeFor(exitCode);
    this.hint = options.hint;
    this.status = options.status;
    this.details = options.details;
    if (options.apiMessage !== undefined) this.apiMessage = options.apiMessage;
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs;
  }

  /**
   * The same error (class, exit code, fields, stack) with another hint, for a caller that knows
   * better what to do next. Errors are not changed once thrown; this one is left as it was.
   */
  withHint(hint: string): this {
    const copy = Object.create(Object.getPrototypeOf(this)) as this;
    Object.defineProperties(copy, Object.getOwnPropertyDescriptors(this));
    Object.defineProperty(copy, 'hint', { value: hint, enumerable: true });
    return copy;
  }

  toJSON(): { error: Record<string, unknown> } {
    return {
      error: {
        code: this.code,
        exitCode: this.exitCode,
        message: this.message,
        status: this.status ?? null,
        details: this.details ?? null,
        ...(this.hint ? { hint: this.hint } : {}),
      },
    };
  }
}

/** Bad flags, missing values, invalid files or values: nothing was sent (exit 2). */
export class UsageError extends CliError {
  constructor(message: string, options: CliErrorOptions = {}) {
    super(ExitCode.Usage, message, { code: 'USAGE', ...options });
  }
}

/**
 * A flag or field whose value is not acceptable (exit 2): `invalid FIELD "VALUE": PROBLEM`. A
 * prompt that re-asks shows `problem` alone, the field being the question it asked.
 */
export class FieldError extends UsageError {
  constructor(readonly field: string, shownValue: string, readonly problem: string, options: CliErrorOptions = {}) {
    super(`invalid ${field} ${shownValue}: ${problem}`, options);
  }
}

/** No credentials, 401 or 403 (exit 3). */
export class AuthError extends CliError {
  /** For a 403 that named it: the scope the token lacks (the token itself was accepted). */
  readonly missingScope?: string;

  constructor(message: string, options: CliErrorOptions & { missingScope?: string } = {}) {
    const { missingScope, ...rest } = options;
    super(ExitCode.Auth, message, { code: 'UNAUTHORIZED', ...rest });
    if (missingScope) this.missingScope = missingScope;
  }
}

/** What to do about a 403: name the scope when the service said which one. */
export function forbiddenHint(missingScope?: string): string {
  return missingScope
    ? `this token lacks scope ${missingScope}; use a profile whose application (or user role) has it, `
      + 'or have an administrator add it (`cardctl oauth update`, `cardctl users update`); `cardctl auth status` shows the profile in use'
    : 'the credentials work but lack permission for this operation; check the application scopes or user roles';
}

/** 404 or an unknown identifier (exit 4). */
export class NotFoundError extends CliError {
  constructor(message: string, options: CliErrorOptions = {}) {
    super(ExitCode.NotFound, message, { code: 'NOT_FOUND', ...options });
  }
}

/** Any other 4xx: validation, conflict, PIN mismatch, limits; also `--expect-approved` declines (exit 5). */
export class RejectedError extends CliError {
  constructor(message: string, options: CliErrorOptions = {}) {
    super(ExitCode.Rejected, message, { code: 'REJECTED', ...options });
  }
}

/** No answer: refused, reset, DNS, TLS, timeout (exit 6). */
export class NetworkError extends CliError {
  constructor(message: string, options: CliErrorOptions = {}) {
    super(ExitCode.Network, message, { code: 'NETWORK', ...options });
  }
}

/** 5xx after retries, or a body that is not the API's (exit 7). */
export class ServerError extends CliError {
  constructor(message: string, options: CliErrorOptions = {}) {
    super(ExitCode.Server, message, { code: 'SERVER_ERROR', ...options });
  }
}

/** A bulk command finished with some records failed (exit 8). */
export class PartialFailureError extends CliError {
  constructor(message: string, options: CliErrorOptions = {}) {
    super(ExitCode.Partial, message, { code: 'PARTIAL_FAILURE', ...options });
  }
}

/** Ctrl-C, SIGTERM or SIGHUP (exit 130). */
export class InterruptedError extends CliError {
  constructor(message = 'interrupted', options: CliErrorOptions = {}) {
    super(ExitCode.Interrupted, message, { code: 'INTERRUPTED', ...options });
  }
}


function defaultCodeFor(exitCode: ExitCodeValue): string {
  switch (exitCode) {
    case ExitCode.Usage: return 'USAGE';
    case ExitCode.Auth: return 'UNAUTHORIZED';
    case ExitCode.NotFound: return 'NOT_FOUND';
    case ExitCode.Rejected: return 'REJECTED';
    case ExitCode.Network: return 'NETWORK';
    case ExitCode.Server: return 'SERVER_ERROR';
    case ExitCode.Partial: return 'PARTIAL_FAILURE';
    case ExitCode.Interrupted: return 'INTERRUPTED';
    default: return 'INTERNAL';
  }
}

/** Maps an HTTP error status to its exit code. */
export function exitCodeForStatus(status: number): ExitCodeValue {
  if (status === 401 || status === 403) return ExitCode.Auth;
  if (status === 404) return ExitCode.NotFound;
  if (status >= 400 && status < 500) return ExitCode.Rejected;
  if (status >= 500) return ExitCode.Server;
  return ExitCode.Internal;
}

/** Why a file-system call failed, for people (errno code → words). */
const FS_REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EEXIST: 'a file is in the way where a directory is needed',
  EISDIR: 'it is a directory, not a file',
  ENOENT: 'it does not exist',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the path is too long',
  EMFILE: 'too many open files',
  EBUSY: 'the file is busy',
  EIO: 'input/output error',
  EFBIG: 'the file is too large',
};

/** The errno code of a file-system error (`EACCES`, …), if `error` is one cardctl can explain. */
export function fsErrorCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && Object.hasOwn(FS_REASONS, code) ? code : undefined;
}

/** Why a file-system call failed, in words (`permission denied (EACCES)`), else the error's message. */
export function fsReason(error: unknown): string {
  const code = fsErrorCode(error);
  return code ? `${FS_REASONS[code]} (${code})` : error instanceof Error ? error.message : String(error);
}

/**
 * A file or directory cardctl needs cannot be used (not a directory, permissions, read-only,
 * full): the user's set-up, not a bug. Exit 2, saying which path and what to fix.
 */
export class SetupError extends UsageError {
  constructor(message: string, options: CliErrorOptions = {}) {
    super(message, { code: 'SETUP', ...options });
  }

  /** `<what> <path>: <reason>` from a file-system error. */
  static fromFs(what: string, path: string, error: unknown, hint?: string): SetupError {
    return new SetupError(`${what} ${path}: ${fsReason(error)}`, { hint: hint ?? 'fix the path or its permissions', cause: error });
  }
}

/**
 * stdout could not take what was printed (`> /dev/full`, a full disk, a failing device): the
 * output is not whole. Exit 2, like any file cardctl cannot write. A reader that went away
 * (EPIPE, `| head`) is not this: that run ends quietly.
 */
export class OutputError extends SetupError {
  constructor(cause: unknown) {
    super(`cannot write output: ${fsReason(cause)}`, { code: 'OUTPUT', cause });
  }
}

/** Wraps anything thrown into a CliError; unknown errors are bugs (exit 1). */
export function toCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (isAbort(error)) return new InterruptedError();
  // A file-system error that no command explained is still about the user's files, not a bug.
  const fsError = error as NodeJS.ErrnoException;
  if (fsErrorCode(error) && typeof fsError.path === 'string') {
    return SetupError.fromFs(`cannot ${fsError.syscall ?? 'use'}`, fsError.path, error, 'check that the path exists, is of the right kind (file or directory), and that you can read and write it');
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CliError(ExitCode.Internal, `unexpected error: ${message}`, {
    code: 'INTERNAL',
    hint: 'this is a bug in cardctl; rerun with --debug and report it with the output',
    cause: error,
  });
}

function isAbort(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  // @inquirer/prompts throws ExitPromptError on Ctrl-C; AbortController gives AbortError.
  return error.name === 'ExitPromptError' || error.name === 'AbortPromptError';
}
