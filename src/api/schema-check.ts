// One JSON Schema validator for the TypeBox schemas of schemas.ts, on both sides of the wire: the
// sandbox checks requests with it, the CLI checks a body it built before sending it. ajv with its
// formats (date-time, email); no coercion unless asked (query strings and path parameters).
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { Static, TSchema } from '@sinclair/typebox';
import { UsageError } from '../core/errors.js';

/** What a failure says, as ajv reports it and fastify hands it on (error.validation). */
export type SchemaFailure = Pick<ErrorObject, 'keyword' | 'instancePath' | 'message'> & { params: Record<string, unknown> };

export function createAjv(options: { coerceTypes: boolean }): Ajv {
  const ajv = new Ajv({ allErrors: true, removeAdditional: false, useDefaults: true, strict: false, ...options });
  addFormats(ajv);
  return ajv;
}

export interface SchemaCheck<T extends TSchema> {
  /** True when the value holds to the schema, which TypeScript then knows it does. */
  (value: unknown): value is Static<T>;
  /** The failures of the last check. */
  errors?: ErrorObject[] | null;
}

/** A type guard compiled from a schema (strict: no coercion). */
export function schemaCheck<T extends TSchema>(schema: T): SchemaCheck<T> {
  return createAjv({ coerceTypes: false }).compile<Static<T>>(schema);
}

/**
 * A body the CLI assembled from many sources (flags, a file, the current record), checked against
 * its schema before it is sent: typed by the check, not by a cast. A failure is a value no flag
 * validator caught, reported as a usage error naming the field.
 */
export function checkedBody<T extends TSchema>(check: SchemaCheck<T>, body: unknown, where: string): Static<T> {
  if (check(body)) return body;
  const first = check.errors?.[0];
  const failure = first ? fieldFailure(first, 'body') : { field: 'body', message: 'does not hold to the API schema' };
  throw new UsageError(`${where}: ${failure.field} ${failure.message}`);
}

/** An ajv failure as the field it is about and what is wrong with it (`context`: body, query…, named when the field is the whole). */
export function fieldFailure(error: SchemaFailure, context: string | undefined): { field: string; message: string } {
  const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params;
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
