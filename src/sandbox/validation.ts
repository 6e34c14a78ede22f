// Request validation: ajv over the TypeBox schemas of src/api/schemas.ts, strict for bodies
// (no type coercion, unknown properties rejected), coercing for query strings and path
// parameters (they arrive as text). Failures become field-level errors of the API envelope.
import AjvModule, { type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ApiError, fieldMessage, type FieldError } from './errors.js';

// CommonJS default exports seen through ESM interop.
const Ajv = ((AjvModule as unknown as { default?: typeof AjvModule }).default ?? AjvModule) as typeof AjvModule;
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as typeof addFormatsModule;

export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const base = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false } as const;
  const bodyAjv = new Ajv({ ...base, coerceTypes: false });
  const textAjv = new Ajv({ ...base, coerceTypes: true });
  addFormats(bodyAjv);
  addFormats(textAjv);
  return ({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
}

/**
 * fastify's validation error (error.validation, error.validationContext) → 400 VALIDATION_ERROR.
 * `rename`: the name a field goes by in the request (a list's query parameter in a dialect).
 */
export function validationFailure(errors: ErrorObject[], context: string | undefined, rename?: (field: string) => string): ApiError {
  const fieldErrors = dedupe(errors.filter((e) => e.keyword !== 'if').map((e) => toFieldError(e, context)))
    .map((e) => (rename ? { ...e, field: rename(e.field) } : e));
  const first = fieldErrors[0] ?? { field: context ?? 'request', message: 'is invalid' };
  const more = fieldErrors.length > 1 ? ` (and ${fieldErrors.length - 1} more)` : '';
  return new ApiError(400, 'VALIDATION_ERROR', `${fieldMessage(first.field, first.message)}${more}`, fieldErrors);
}

function toFieldError(error: ErrorObject, context: string | undefined): FieldError {
  const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as Record<string, unknown>;
  let message: string;
  switch (error.keyword) {
    case 'required':
      segments.push(String(params.missingProperty));
      message = 'is required';
      break;
    case 'additionalProperties':
      segments.push(String(params.additionalProperty));
      message = 'is not an allowed field';
      break;
    case 'type':
      message = `must be ${article(String(params.type))}`;
      break;
    case 'format':
      message = `must be a valid ${params.format}`;
      break;
    case 'pattern':
      message = `must match ${params.pattern}`;
      break;
    case 'maximum':
      message = `must be at most ${params.limit}`;
      break;
    case 'minimum':
      message = `must be at least ${params.limit}`;
      break;
    case 'maxLength':
      message = `must be at most ${params.limit} characters`;
      break;
    case 'minLength':
      message = `must be at least ${params.limit} character${params.limit === 1 ? '' : 's'}`;
      break;
    case 'anyOf':
    case 'const':
    case 'enum':
      message = 'is not one of the allowed values';
      break;
    default:
      message = error.message ?? 'is invalid';
  }
  const field = segments.reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment), '');
  return { field: field || (context === 'body' ? 'body' : context ?? 'request'), message };
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** anyOf over literals reports every branch; keep one error per field. */
function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Map<string, FieldError>();
  for (const error of errors) {
    const existing = seen.get(error.field);
    // Prefer the summary ("is not one of the allowed values") over each branch's const error.
    if (!existing || error.message === 'is not one of the allowed values') seen.set(error.field, error);
  }
  return [...seen.values()];
}
