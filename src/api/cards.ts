// Card endpoints. Returns data (with the raw body for `-o raw`) and never prints.
import { CliError, ExitCode, NotFoundError, RejectedError } from '../core/errors.js';
import type { ApiClient, ApiResponse } from './client.js';
import { paginate, type ListPageResponse } from './paging.js';
import { LIST_PATHS, listQuery, type ListParams } from './dialect.js';
import type {
  Card,
  CardProgram,
  ChangePinBody,
  CreateCardBody,
  EncryptedPinBlock,
  RenewCardBody,
  UpdateCustomerBody,
} from './schemas.js';

const CARDS = LIST_PATHS.cards;

/** search, cardId, page, limit: named as the client's dialect has them when sent. */
export type ListCardsParams = ListParams<'cards'>;

const id = (cardId: string) => encodeURIComponent(cardId);

/** GET /institutions/cards: one page. */
export function listCards(client: ApiClient, params: ListCardsParams = {}, signal?: AbortSignal): Promise<ApiResponse<Card[]>> {
  return client.request<Card[]>({ method: 'GET', path: CARDS, query: listQuery(client.dialect, 'cards', params), signal });
}

/** Every page of GET /institutions/cards, one response at a time. */
export function listAllCards(client: ApiClient, params: Omit<ListCardsParams, 'page'> = {}, signal?: AbortSignal): AsyncIterableIterator<ListPageResponse<Card>> {
  const { limit, ...query } = params;
  return paginate<Card>(client, CARDS, query, limit ?? client.dialect.maxPageSize, signal);
}

/** One card, via GET /institutions/cards?cardId= (the API has no GET /cards/{id}). */
export async function getCard(client: ApiClient, cardId: string, signal?: AbortSignal): Promise<ApiResponse<Card>> {
  const response = await listCards(client, { cardId, limit: 1 }, signal);
  const card = Array.isArray(response.data) ? response.data.find((c) => c.id === cardId || c._id === cardId) : undefined;
  if (!card) {
    throw new NotFoundError(`card ${cardId} not found`, {
      hint: 'check the id with `cardctl cards list --search …`; cards of other institutions are not visible',
      status: 404,
    });
  }
  return { ...response, data: card };
}

/** POST /institutions/cards */
export function createCard(client: ApiClient, body: CreateCardBody, signal?: AbortSignal, options: { conflictNoted?: boolean } = {}): Promise<ApiResponse<Card>> {
  return client.request<Card>({ method: 'POST', path: CARDS, body, signal, conflictNoted: options.conflictNoted });
}

/** The card with exactly this reference code, if the institution has one (search, then an exact match). */
export async function findCardByReference(client: ApiClient, referenceCode: string, signal?: AbortSignal): Promise<ApiResponse<Card> | undefined> {
  for await (const page of listAllCards(client, { search: referenceCode }, signal)) {
    const card = (Array.isArray(page.data) ? page.data : []).find((c) => c.referenceCode === referenceCode);
    if (card) return { ...page, data: card };
  }
  return undefined;
}

export interface ExactlyOnceResult {
  response: ApiResponse<Card>;
  /** An earlier attempt had created the card (its answer was lost); `response` is the lookup. */
  appliedEarlier: boolean;
  /** POSTs sent. */
  attempts: number;
}

/**
 * POST /institutions/cards at most once in effect, using the body's referenceCode (unique per
 * institution). After an answer that leaves it open whether the card was created (network
 * error, timeout, 5xx), the card is looked up by reference: found means the attempt applied;
 * not found means it did not, and the same body is sent again (up to the client's --retries).
 * A 409 CONFLICT after such an attempt means an earlier one applied after all. A 429 is
 * retried after its Retry-After. Anything else is thrown as it came.
 */
export async function createCardExactlyOnce(client: ApiClient, body: CreateCardBody, signal?: AbortSignal, options: { conflictNoted?: boolean } = {}): Promise<ExactlyOnceResult> {
  const reference = body.referenceCode;
  if (!reference) throw new Error('createCardExactlyOnce needs a referenceCode');
  let uncertain = false;
  // A card an attempt created though its answer was lost: the journal gets its id.
  const appliedEarlier = (found: ApiResponse<Card>, attempts: number): ExactlyOnceResult => {
    client.note({ method: 'POST', path: CARDS, outcome: 'done', ids: [found.data.id], reference });
    return { response: found, appliedEarlier: true, attempts };
  };
  for (let attempt = 0; ; attempt++) {
    try {
      return { response: await createCard(client, body, signal, options), appliedEarlier: false, attempts: attempt + 1 };
    } catch (error) {
      if (!(error instanceof CliError) || signal?.aborted || error.code === 'ABORTED') throw error;
      if (error.status === 409 && uncertain) {
        const found = await findCardByReference(client, reference, signal);
        if (found) return appliedEarlier(found, attempt + 1);
        throw error;
      }
      const maybeApplied = error.exitCode === ExitCode.Network || (error.status !== undefined && error.status >= 500);
      const rateLimited = error.status === 429;
      if (!maybeApplied && !rateLimited) throw error;
      if (maybeApplied) {
        uncertain = true;
        let found: ApiResponse<Card> | undefined;
        try {
          found = await findCardByReference(client, reference, signal);
        } catch (lookupError) {
          // Cannot tell whether the card exists: say so rather than risk a second card.
          throw error.withHint(`could not check whether the card was created (${(lookupError as Error).message}); ` +
            `look for it with \`cardctl cards list --search ${reference}\` before retrying with --reference ${reference}`);
        }
        if (found) return appliedEarlier(found, attempt + 1);
      }
      if (attempt >= client.retryLimit) {
        throw maybeApplied
          ? error.withHint(`no card with reference ${reference} was found after the failure, so none was created as far as can be told; ` +
            `retry with --reference ${reference} (a CONFLICT then means a late attempt got through: \`cardctl cards list --search ${reference}\`)`)
          : error;
      }
      await client.pause(attempt, rateLimited ? error.retryAfterMs ?? 1_000 : undefined, error.message);
    }
  }
}

/**
 * PUT /institutions/cards/{cardId}/renew. With `version` (the card's `__v` as read) it is sent
 * with If-Match, so that a renewal resent after a lost answer is refused (409) if the first one
 * got through meanwhile, instead of renewing twice (where the service honours If-Match).
 */
export function renewCard(client: ApiClient, cardId: string, body: RenewCardBody, signal?: AbortSignal, version?: number): Promise<ApiResponse<Card>> {
  const headers = version === undefined ? undefined : { 'if-match': `"${version}"` };
  return client.request<Card>({ method: 'PUT', path: `${CARDS}/${id(cardId)}/renew`, body, signal, headers });
}

/** PUT /institutions/cards/pin/{cardId}/change */
export function changePin(client: ApiClient, cardId: string, body: ChangePinBody, signal?: AbortSignal): Promise<ApiResponse<Card>> {
  return client.request<Card>({ method: 'PUT', path: `${CARDS}/pin/${id(cardId)}/change`, body, signal });
}

/** PUT /institutions/cards/pin/{cardId}/reset */
export function resetPin(client: ApiClient, cardId: string, newPIN: EncryptedPinBlock, signal?: AbortSignal): Promise<ApiResponse<Card>> {
  return client.request<Card>({ method: 'PUT', path: `${CARDS}/pin/${id(cardId)}/reset`, body: { newPIN }, signal });
}

/** PUT /institutions/cards/{cardId}/customer (the full customer body). */
export function updateCustomer(client: ApiClient, cardId: string, body: UpdateCustomerBody, signal?: AbortSignal): Promise<ApiResponse<Card>> {
  return client.request<Card>({ method: 'PUT', path: `${CARDS}/${id(cardId)}/customer`, body, signal, idempotent: true });
}

/**
 * PUT /institutions/cards/{cardId}/customer on top of the card as it was read (`version`: its
 * `__v`), with If-Match, so that a change someone else made in between is a 409 instead of being
 * overwritten unseen. A 409 may also follow an attempt that applied but whose answer was lost
 * (the retry then meets its own change): the card is read again, and when it already holds this
 * body, that is the answer. Otherwise a RejectedError (exit 5, code CONFLICT) says to run again.
 */
export async function updateCustomerAt(client: ApiClient, cardId: string, body: UpdateCustomerBody, version: number, signal?: AbortSignal): Promise<ApiResponse<Card>> {
  try {
    return await client.request<Card>({
      method: 'PUT', path: `${CARDS}/${id(cardId)}/customer`, body, signal, idempotent: true, headers: { 'if-match': `"${version}"` },
    });
  } catch (error) {
    if (!(error instanceof CliError) || error.status !== 409) throw error;
    const current = await getCard(client, cardId, signal).catch(() => undefined);
    if (current && holdsCustomer(current.data, body)) return current;
    const now = current?.data.__v ?? (error.details as { version?: unknown } | undefined)?.version;
    throw new RejectedError(`card ${cardId} was changed by someone else after it was read (version ${version}${now === undefined ? '' : `, now ${now}`}); your change was not applied`, {
      code: 'CONFLICT',
      status: 409,
      details: error.details,
      hint: 'run the same command again: it reads the card anew and applies only the fields you give on top of the other change',
      cause: error,
    });
  }
}

/** Whether the card's customer already has every value of an Update Card Customer body. */
function holdsCustomer(card: Card, body: UpdateCustomerBody): boolean {
  const customer = card.customer;
  if (!customer) return false;
  const same = (a: unknown, b: unknown) => (a ?? '') === (b ?? '');
  const sameDay = (a: string | null | undefined, b: string | null | undefined) => (a && b ? Date.parse(a) === Date.parse(b) : same(a, b));
  return same(customer.firstName, body.firstName) && same(customer.middleName, body.middleName) && same(customer.lastName, body.lastName)
    && same(customer.emailAddress, body.emailAddress) && same(customer.phoneNumber, body.phoneNumber)
    && sameDay(customer.dateOfBirth, body.dateOfBirth)
    && Object.entries(body.address ?? {}).every(([key, value]) => same((customer.address as Record<string, unknown> | undefined)?.[key], value));
}

/** GET /institutions/cards/{cardId}/activate (a GET that changes state; safe to repeat). */
export function activateCard(client: ApiClient, cardId: string, signal?: AbortSignal): Promise<ApiResponse<Card>> {
  return client.request<Card>({ method: 'GET', path: `${CARDS}/${id(cardId)}/activate`, signal });
}

/** GET /institutions/cards/{cardId}/deactivate */
export function deactivateCard(client: ApiClient, cardId: string, signal?: AbortSignal): Promise<ApiResponse<Card>> {
  return client.request<Card>({ method: 'GET', path: `${CARDS}/${id(cardId)}/deactivate`, signal });
}

/**
 * GET /sandbox/card-programs (a sandbox helper). Resolves undefined when the deployment has no
 * such helper (404), so callers can fall back to asking for a program id.
 */
export async function listCardPrograms(client: ApiClient, signal?: AbortSignal): Promise<CardProgram[] | undefined> {
  try {
    const response = await client.request<CardProgram[]>({ method: 'GET', path: '/sandbox/card-programs', signal });
    return Array.isArray(response.data) ? response.data : undefined;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}
