// Helpers for the sandbox tests: an in-process sandbox on port 0, plain HTTP with undici,
// PIN blocks encrypted the way clients do it, and response checks against /openapi.json.
import { constants, publicEncrypt, randomBytes } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { request } from 'undici';
import { expect } from 'vitest';
import type { Card, ErrorEnvelope, Pagination, PinKeyInfo } from '../../src/api/schemas.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import type { SwitchClock, WebhookFaultState } from '../../src/sandbox/switch/runtime.js';

export type Sandbox = RunningSandbox;
/** What a client needs of a sandbox to make a card's body: its program and PIN key. */
export type CardMaker = Pick<Sandbox, 'cardProgramId' | 'pinPublicKey' | 'pinKeyFingerprint'>;

export async function startTestSandbox(options: { tokenTtlSeconds?: number; adviceRetryFirstMs?: number; firstStan?: number; exchangesMax?: number; exchangesMaxBytes?: number } = {}): Promise<Sandbox> {
  return startSandbox({ port: 0, memory: true, ...options });
}

export interface CallOptions {
  token?: string;
  apiKey?: string;
  body?: unknown;
  /** Sent as is (with `contentType`, default application/json). */
  rawBody?: string | Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  /** Skip the automatic check of the response against /openapi.json. */
  skipOpenApiCheck?: boolean;
}

/**
 * One answer. `T` names the JSON the test expects (e.g. `DataEnvelope<Card>`); the automatic
 * /openapi.json check below holds documented answers to their schema, so the name is checked.
 */
export interface CallResult<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The answer's JSON (undefined when it is not JSON). */
  body: T;
}

/** The API's `{ statusCode, message, data }` answer around one `T`. */
export interface DataEnvelope<T> { statusCode: number; message: string; data: T }
/** The API's list answer: `data` is a page of `T`. */
export interface ListDataEnvelope<T> extends DataEnvelope<T[]> { pagination: Pagination }

/** A failed answer's error envelope, whatever `T` the call expected; the test fails unless it is an error. */
export function errorOf(result: CallResult<unknown>): ErrorEnvelope {
  expect(result.status, result.text).toBeGreaterThanOrEqual(400);
  // Named, not proved: the /openapi.json check of call() holds documented errors to ErrorEnvelope.
  return result.body as ErrorEnvelope;
}

/** /sandbox/switch/clock's answer, GET and POST (`expired`: the holds the call released). */
export type ClockAnswer = SwitchClock & { expired: number };
/** /sandbox/faults's answer, GET and PUT. */
export interface FaultsAnswer { spec: string; seed: number; counts: Record<string, number> }
/** /sandbox/webhook-faults's answer, GET and PUT. */
export type { WebhookFaultState };

/** A reference the API answered expanded (the object, not its id): the test fails if it is only the id. */
export function expanded<T extends object>(reference: string | T): T {
  if (typeof reference === 'string') throw new Error(`expected an expanded object, got the id ${reference}`);
  return reference;
}

type FieldError = NonNullable<ErrorEnvelope['errors']>[number];

/** A 400's field errors: the test fails unless the answer is an error that lists them. */
export function fieldErrorsOf(result: CallResult<unknown>): FieldError[] {
  const { errors } = errorOf(result);
  expect(errors, result.text).toBeDefined();
  return errors ?? [];
}

export async function call<T = unknown>(sandbox: { baseUrl: string }, method: string, path: string, options: CallOptions = {}): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.apiKey !== undefined) headers['x-api-key'] = options.apiKey;
  let body: string | Buffer | undefined;
  if (options.rawBody !== undefined) {
    body = options.rawBody;
    headers['content-type'] ??= options.contentType ?? 'application/json';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await request(`${sandbox.baseUrl}${path}`, { method: method as 'GET', headers, body });
  const text = await response.body.text();
  let parsed: unknown;
  try { parsed = text ? JSON.parse(text) : undefined; } catch { parsed = undefined; }
  // Named, not proved: the /openapi.json check below is what holds a documented answer to its shape.
  const result: CallResult<T> = { status: response.statusCode, headers: response.headers, text, body: parsed as T };
  // Every response of a documented operation must match the sandbox's own /openapi.json.
  if (!options.skipOpenApiCheck && path !== '/openapi.json') {
    const checker = await checkerFor(sandbox.baseUrl);
    checker.expectMatchesIfDocumented(method, path.split('?')[0]!, result);
  }
  return result;
}

const checkers = new Map<string, Promise<OpenApiChecker>>();
function checkerFor(baseUrl: string): Promise<OpenApiChecker> {
  let checker = checkers.get(baseUrl);
  if (!checker) {
    checker = OpenApiChecker.load({ baseUrl });
    checkers.set(baseUrl, checker);
  }
  return checker;
}

/** An Encrypted PIN block: ISO 9564-1 format 1 under RSA-OAEP SHA-256, as clients make it. */
export function encryptPin(sandbox: CardMaker, pin: string, fingerprint = sandbox.pinKeyFingerprint): { encryptedData: string; publicKeyFingerprint: string } {
  const clear = `1${pin.length.toString(16)}${pin}`;
  const fill = randomBytes(8).toString('hex');
  return encryptClearBlock(sandbox, Buffer.from((clear + fill).slice(0, 16), 'hex'), fingerprint);
}

export function encryptClearBlock(sandbox: CardMaker, clear: Buffer, fingerprint = sandbox.pinKeyFingerprint) {
  const cipher = publicEncrypt({ key: sandbox.pinPublicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, clear);
  return { encryptedData: cipher.toString('hex'), publicKeyFingerprint: fingerprint };
}

let referenceCounter = 0;

export function createCardBody(sandbox: CardMaker, overrides: Record<string, unknown> = {}) {
  referenceCounter += 1;
  const now = new Date();
  const expiry = new Date(Date.UTC(now.getUTCFullYear() + 3, now.getUTCMonth(), 28));
  return {
    cardProgram: sandbox.cardProgramId,
    // Base 36: a 13-digit millisecond count is Luhn-valid one time in ten, and tests scan outputs for card numbers.
    referenceCode: `REF-${Date.now().toString(36)}-${referenceCounter}`,
    pinEnabled: true,
    defaultPIN: encryptPin(sandbox, '1234'),
    account: { currency: '566', bankCode: '044', type: 'savings', number: '0123456789' },
    customer: {
      firstName: 'Ada',
      middleName: '',
      lastName: 'Lovelace',
      emailAddress: 'ada@example.com',
      phoneNumber: '+2348012345678',
      dateOfBirth: '1990-12-10T00:00:00.000Z',
      address: { line1: '1 Marina', line2: '', city: 'Lagos', state: 'Lagos', country: 'NG', postalCode: '100001' },
    },
    embossingName: 'ADA LOVELACE',
    startDate: now.toISOString(),
    expiryDate: expiry.toISOString(),
    ...overrides,
  };
}

export async function createCard(sandbox: Sandbox, overrides: Record<string, unknown> = {}, token = sandbox.token): Promise<Card> {
  const response = await call<DataEnvelope<Card>>(sandbox, 'POST', '/institutions/cards', { token, body: createCardBody(sandbox, overrides) });
  expect(response.status, response.text).toBe(201);
  return response.body.data;
}

/**
 * A new card on a sandbox in another process (`sandbox serve --json`'s first line), made over
 * HTTP with a PIN block for the key it publishes; returns the card's id.
 */
export async function createCardOverHttp(info: { baseUrl: string; token: string; cardProgramId: string; pinKeyFingerprint: string }, overrides: Record<string, unknown> = {}): Promise<string> {
  const key = await call<PinKeyInfo>(info, 'GET', '/sandbox/pin-key');
  const sandbox: CardMaker = { cardProgramId: info.cardProgramId, pinPublicKey: key.body.publicKey, pinKeyFingerprint: info.pinKeyFingerprint };
  const response = await call<DataEnvelope<Card>>(info, 'POST', '/institutions/cards', { token: info.token, body: createCardBody(sandbox, overrides) });
  expect(response.status, response.text).toBe(201);
  return response.body.data.id;
}

type Validator = ((data: unknown) => boolean) & { errors?: unknown };

/** What the tests read of one operation of /openapi.json. */
export interface OpenApiOperation {
  description?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ name: string; in: string; description?: string }>;
  requestBody?: { content?: Record<string, { schema: unknown }> };
  responses: Record<string, unknown>;
}
/** /openapi.json's paths: path template → method → operation. */
export type OpenApiPaths = Record<string, Record<string, OpenApiOperation>>;
/** What the tests read of /openapi.json. */
// A type, not an interface: it stays assignable to Record<string, unknown> (what validators take).
export type OpenApiAnswer = { paths: OpenApiPaths; servers: Array<{ url: string }> };

/** What the checker reads of an OpenAPI document. */
interface OpenApiDocument {
  paths?: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: object }> } | undefined> } | undefined>>;
}

/** Checks responses against the schemas of the sandbox's own /openapi.json. */
export class OpenApiChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly cache = new Map<string, Validator>();
  constructor(private readonly document: OpenApiDocument) {
    addFormats(this.ajv);
  }

  static async load(sandbox: { baseUrl: string }): Promise<OpenApiChecker> {
    const response = await call<OpenApiDocument>(sandbox, 'GET', '/openapi.json', { skipOpenApiCheck: true });
    return new OpenApiChecker(response.body);
  }

  /** The documented path template a concrete path belongs to, for this method. */
  templateFor(method: string, path: string): string | undefined {
    const candidates = Object.keys(this.document.paths ?? {})
      .filter((template) => this.document.paths?.[template]?.[method.toLowerCase()])
      .filter((template) => new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path))
      // Literal segments win over parameters (/oauth/applications over /oauth/{id}).
      .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
    return candidates[0];
  }

  /** Checks a response when its operation is documented; answers from undocumented routes (404s) pass. */
  expectMatchesIfDocumented(method: string, path: string, result: CallResult<unknown>): void {
    const template = this.templateFor(method, path);
    if (template) this.expectMatches(method, template, result);
  }

  /** Asserts `result` matches the documented response of `method pathTemplate` for its status. */
  expectMatches(method: string, pathTemplate: string, result: CallResult<unknown>): void {
    const operation = this.document.paths?.[pathTemplate]?.[method.toLowerCase()];
    expect(operation, `${method} ${pathTemplate} is documented`).toBeDefined();
    const status = String(result.status);
    const response = operation?.responses[status] ?? operation?.responses[`${status[0]}XX`];
    expect(response, `${method} ${pathTemplate} documents status ${status}`).toBeDefined();
    if (!response) return;
    const key = `${method} ${pathTemplate} ${status}`;
    let validate = this.cache.get(key);
    if (!validate) {
      validate = this.ajv.compile(response.content['application/json']!.schema) as Validator;
      this.cache.set(key, validate);
    }
    const ok = validate(result.body);
    expect(ok, `${key}: ${JSON.stringify(validate.errors)}`).toBe(true);
  }
}

/** SQL that takes a database back to schema version 3 (tests of older databases): versions 5 and 4 undone. */
export const UNDO_VERSION_4 = `DELETE FROM schema_migrations WHERE version >= 4;
  ALTER TABLE transactions DROP COLUMN kind; ALTER TABLE transactions DROP COLUMN flow; ALTER TABLE transactions DROP COLUMN currency;
  DROP INDEX transactions_approved_authorizations;
  ALTER TABLE transactions DROP COLUMN captured_minor; ALTER TABLE transactions DROP COLUMN refunded_minor;`;
