// Institutions come with a user (role admin, permission *), a bearer token, an API key and a
// default card program. The first start of a database seeds one; POST /sandbox/institutions
// makes more, POST /sandbox/users more users.
import type { CardProgram, Institution, InstitutionUser, SandboxInstitutionCredentials, SandboxUserCredentials } from '../api/schemas.js';
import { hashSecret, newId, newSecret, opaque } from './ids.js';
import type { Store } from './store/index.js';
import { changeWebhookConfig } from './services/webhook-config.js';
import { webhookTypeOfScheme, type SignatureScheme, type WebhookType } from '../webhook-protocol/signature.js';

export interface NewInstitution {
  name?: string;
  webhookUrl?: string;
}

const SEED_KEY = 'seed';

/**
 * The seeded institution's credentials. The first call creates them; later calls (a restart on
 * the same database) return the same ones, so scripts and profiles keep working. The clear
 * seed credentials are kept in the meta table for that reason: this is a sandbox.
 */
export function seedSandbox(store: Store, now: Date, options: { webhookUrl?: string; webhookScheme?: SignatureScheme } = {}): SandboxInstitutionCredentials {
  return store.transaction(() => {
    const existing = store.meta.get<SandboxInstitutionCredentials>(SEED_KEY);
    const seed = existing ?? createInstitution(store, now, { name: 'Sandbox Bank' });
    if (!existing) store.meta.set(SEED_KEY, seed);
    const change = {
      ...(options.webhookUrl !== undefined ? { url: options.webhookUrl } : {}),
      ...(options.webhookScheme !== undefined ? { type: webhookTypeOfScheme(options.webhookScheme) } : {}),
    };
    if (Object.keys(change).length > 0) changeSeededWebhook(store, seed, change, now);
    return seed;
  });
}

export function createInstitution(store: Store, now: Date, options: NewInstitution = {}): SandboxInstitutionCredentials {
  return store.transaction(() => {
    const at = now.toISOString();
    const institutionId = newId();
    const userId = newId();
    const name = options.name ?? `Sandbox Institution ${institutionId.slice(-6)}`;
    const code = name.replace(/[^A-Za-z0-9]/g, '').slice(0, 6).toUpperCase() || 'SBX';
    const institution: Institution = {
      _id: institutionId,
      id: institutionId,
      name,
      code,
      registrationCountry: 'NG',
      address: { street: '1 Sandbox Way', city: 'Lagos', state: 'Lagos', country: 'NG' },
      emailAddress: `ops@${code.toLowerCase()}.sandbox.test`,
      phoneNumber: '+2348000000000',
      websiteUrl: 'https://sandbox.test',
      isApproved: true,
      status: 'active',
      isBlocked: false,
      createdBy: userId,
      users: [userId],
      memberships: [],
      platformWalletId: opaque(12),
      platformClientId: opaque(12),
      createdAt: at,
      updatedAt: at,
      __v: 0,
    };
    store.institutions.insert(institution);
    const { token, apiKey } = addUser(store, now, {
      institutionId, userId, emailAddress: `operator@${code.toLowerCase()}.sandbox.test`, roles: [{ role: 'admin', permissions: ['*'] }],
    });

    const program = defaultCardProgram({ institutionId, createdBy: userId, now, webhookUrl: options.webhookUrl, panPrefix: freeDefaultBin(store) });
    store.cardPrograms.insert(program);
    return { institutionId, userId, token, apiKey, cardProgramId: program.id };
  });
}

export interface NewUser {
  institutionId: string;
  userId?: string;
  firstName?: string;
  lastName?: string;
  emailAddress?: string;
  roles: InstitutionUser['roles'];
}

/**
 * A user of an institution with its bearer token and API key (shown only here). The
 * credentials carry scope `*`: what they may do is what the user's roles grant, read on every
 * request (src/sandbox/auth.ts).
 */
export function addUser(store: Store, now: Date, input: NewUser): SandboxUserCredentials {
  const at = now.toISOString();
  const userId = input.userId ?? newId();
  const { institutionId } = input;
  const institution = store.institutions.get(institutionId);
  if (!institution) throw new Error(`no institution ${institutionId}`);
  if (!institution.users.includes(userId)) store.institutions.update({ ...institution, users: [...institution.users, userId], updatedAt: at });
  const user: InstitutionUser = {
    _id: userId,
    id: userId,
    institution: institutionId,
    firstName: input.firstName ?? 'Sandbox',
    lastName: input.lastName ?? 'Operator',
    emailAddress: input.emailAddress ?? `user-${userId.slice(-6)}@${institution.code.toLowerCase()}.sandbox.test`,
    phoneNumber: '+2348000000001',
    status: 'active',
    isBlocked: false,
    roles: input.roles.map((role) => ({ role: role.role, permissions: [...role.permissions] })),
    embossingName: '',
    startDate: null,
    expiryDate: null,
    printCard: false,
    createdAt: at,
    updatedAt: at,
  };
  store.institutions.insertUserRecord(user);
  const token = newSecret('sbx_tok');
  const apiKey = newSecret('sbx_key');
  store.credentials.insert({ secretHash: hashSecret(token), kind: 'token', institutionId, userId, applicationId: null, scope: '*', expiresAt: null });
  store.credentials.insert({ secretHash: hashSecret(apiKey), kind: 'apiKey', institutionId, userId, applicationId: null, scope: '*', expiresAt: null });
  return { userId, token, apiKey };
}

/** The BIN of the first institution's default program; later institutions get the next free one. */
const DEFAULT_BIN = 506099;
const DEFAULT_PAN_LENGTH = 16;

/**
 * The first BIN from DEFAULT_BIN up whose 16-digit range no institution's program touches: an
 * issuer's BIN belongs to it alone, so no two institutions draw numbers from one range. (A
 * program's prefix is at least a BIN long, so each program holds at most one candidate.)
 */
export function freeDefaultBin(store: Store): string {
  for (let bin = DEFAULT_BIN; ; bin++) {
    if (!store.cardPrograms.rangeHeldByOthers('', String(bin), DEFAULT_PAN_LENGTH)) return String(bin);
  }
}

/** A complete program: Verve-like BIN range, 3-year expiry, all channels with daily limits. */
export function defaultCardProgram(input: { institutionId: string; createdBy: string; now: Date; webhookUrl?: string; name?: string; panPrefix?: string; panLength?: number }): CardProgram {
  const id = newId();
  const at = input.now.toISOString();
  const panPrefix = input.panPrefix ?? String(DEFAULT_BIN);
  const panLength = input.panLength ?? DEFAULT_PAN_LENGTH;
  const end = new Date(input.now);
  end.setUTCFullYear(end.getUTCFullYear() + 10);
  return {
    _id: id,
    id,
    institution: input.institutionId,
    createdBy: input.createdBy,
    name: input.name ?? 'Sandbox Virtual Debit',
    scheme: 'verve',
    type: 'virtual',
    serviceCode: '601',
    code: 'SBXVD',
    bankCode: '999',
    seqNumber: '001',
    ...programRange(panPrefix, panLength),
    panPermutation: { algorithm: 'luhn-sequential' },
    maxExpiry: 60,
    renewable: true,
    channels: {
      pos: { enabled: true, dailyLimit: { count: 20, amount: 500000 } },
      atm: { enabled: true, dailyLimit: { count: 5, amount: 200000 } },
      web: { enabled: true, dailyLimit: { count: 20, amount: 300000 } },
    },
    isDeleted: false,
    active: true,
    anonymous: false,
    randomCardNumber: false,
    allowRandomPan: true,
    smart: false,
    allowTips: false,
    cardProgramUpdate: false,
    settlementConfig: { schedule: 'daily', config: 'net' },
    issuer: 1,
    cardProgramId: 1,
    panSequenceCounter: 0,
    startDate: at,
    endDate: end.toISOString(),
    createdAt: at,
    updatedAt: at,
    webHookConfig: { type: 'http', header: 'x-webhook-secret', url: input.webhookUrl ?? '', secret: opaque(16) },
    losesAccount: '1000000001',
    issuedAccount: '1000000002',
    feeAccount: '1000000003',
  };
}

/** panStart..panEnd: every number of the given length under the prefix. */
export function programRange(panPrefix: string, panLength: number): Pick<CardProgram, 'panPrefix' | 'panStart' | 'panEnd' | 'panLength'> {
  return {
    panPrefix,
    panLength,
    panStart: panPrefix.padEnd(panLength, '0'),
    panEnd: panPrefix.padEnd(panLength, '9'),
  };
}

/** `sandbox serve --webhook-url/--webhook-scheme`: the seeded program's webhook changed as a PUT would change it. */
function changeSeededWebhook(store: Store, seed: SandboxInstitutionCredentials, change: { url?: string; type?: WebhookType }, now: Date): void {
  const program = store.cardPrograms.get(seed.institutionId, seed.cardProgramId);
  if (!program) return;
  const webHookConfig = changeWebhookConfig(program.webHookConfig, change, now);
  if (JSON.stringify(webHookConfig) === JSON.stringify(program.webHookConfig)) return;
  store.cardPrograms.update({ ...program, webHookConfig, updatedAt: now.toISOString() });
}
