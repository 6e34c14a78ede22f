// Request validation: ajv over the TypeBox schemas of src/api/schemas.ts, strict for bodies
// (no type coercion, unknown properties rejected), coercing for query strings and path
// parameters (they arrive as text). Failures become field-level errors of the API envelope.
import type { FastifySchemaCompiler } from 'fastify';
import { createAjv, fieldFailure, type SchemaFailure } from '../api/schema-check.js';
import { ApiError, fieldMessage, type FieldError } from './errors.js';

export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const bodyAjv = createAjv({ coerceTypes: false });
  const textAjv = createAjv({ coerceTypes: true });
  return ({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
}

/**
 * fastify's validation error (error.validation, error.validationContext) → 400 VALIDATION_ERROR.
 * `rename`: the name a field goes by in the request (a list's query parameter in a dialect).
 */
export function validationFailure(errors: readonly SchemaFailure[], context: string | undefined, rename?: (field: string) => string): ApiError {
  const fieldErrors = dedupe(errors.filter((e) => e.keyword !== 'if').map((e) => fieldFailure(e, context)))
    .map((e) => (rename ? { ...e, field: rename(e.field) } : e));
  const first = fieldErrors[0] ?? { field: context ?? 'request', message: 'is invalid' };
  const more = fieldErrors.length > 1 ? ` (and ${fieldErrors.length - 1} more)` : '';
  return new ApiError(400, 'VALIDATION_ERROR', `${fieldMessage(first.field, first.message)}${more}`, fieldErrors);
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
