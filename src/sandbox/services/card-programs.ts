// Card programs of an institution (a sandbox helper: the reference API has no such endpoint):
// list, create from the seeded defaults, change. A new PAN range restarts the sequence.
import type { CardProgram, CardProgramInput, StandInPolicy, UpdateCardProgramInput } from '../../api/schemas.js';
import type { Principal } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { invalidField, notFound } from '../errors.js';
import { defaultCardProgram, programRange } from '../tenancy.js';

export type CardProgramService = ReturnType<typeof cardProgramService>;

/** A program without a stand-in policy declines (96) when the webhook gives no usable answer. */
const NO_STAND_IN: StandInPolicy = { mode: 'decline', maxAmount: 0, dailyAmount: 0 };

export function cardProgramService({ store, clock }: Pick<SandboxDeps, 'store' | 'clock'>) {
  return {
    list(institutionId: string): CardProgram[] {
      return store.cardPrograms.listByInstitution(institutionId);
    },

    /** Defaults are those of the seeded program. */
    create(principal: Principal, input: CardProgramInput): CardProgram {
      const { institutionId, userId } = principal;
      const now = clock.now();
      const base = defaultCardProgram({
        institutionId, createdBy: userId ?? institutionId, now, name: input.name, panPrefix: input.panPrefix, panLength: input.panLength,
      });
      const program = applyProgramChanges(base, input, now);
      store.transaction(() => store.cardPrograms.insert(program));
      return program;
    },

    update(institutionId: string, programId: string, input: UpdateCardProgramInput): CardProgram {
      return store.transaction(() => {
        const current = store.cardPrograms.get(institutionId, programId);
        if (!current) throw notFound(`card program ${programId}`);
        const next = applyProgramChanges(current, input, clock.now());
        store.cardPrograms.update(next);
        return next;
      });
    },
  };
}

/**
 * The given fields changed. The nested objects (`channels`, each channel's `dailyLimit`,
 * `webHookConfig`, `standIn`) are merged member by member into the current values: what a
 * change leaves out keeps its value.
 */
function applyProgramChanges(program: CardProgram, input: UpdateCardProgramInput, now: Date): CardProgram {
  const next: CardProgram = { ...program, updatedAt: now.toISOString() };
  if (input.name !== undefined) next.name = input.name;
  if (input.scheme !== undefined) next.scheme = input.scheme;
  if (input.maxExpiry !== undefined) next.maxExpiry = input.maxExpiry;
  if (input.allowRandomPan !== undefined) next.allowRandomPan = input.allowRandomPan;
  if (input.randomCardNumber !== undefined) next.randomCardNumber = input.randomCardNumber;
  if (input.renewable !== undefined) next.renewable = input.renewable;
  if (input.panPrefix !== undefined || input.panLength !== undefined) {
    const prefix = input.panPrefix ?? program.panPrefix;
    const length = input.panLength ?? program.panLength;
    if (prefix.length >= length - 1) throw invalidField('panPrefix', `leaves no digits for card numbers of length ${length}`);
    Object.assign(next, programRange(prefix, length));
    if (prefix !== program.panPrefix || length !== program.panLength) next.panSequenceCounter = 0;
  }
  if (input.channels) {
    next.channels = { ...program.channels };
    for (const channel of ['pos', 'atm', 'web'] as const) {
      const change = input.channels[channel];
      if (!change) continue;
      const current = program.channels[channel];
      next.channels[channel] = { enabled: change.enabled ?? current.enabled, dailyLimit: { ...current.dailyLimit, ...change.dailyLimit } };
    }
  }
  if (input.webHookConfig) next.webHookConfig = { ...program.webHookConfig, ...input.webHookConfig };
  if (input.standIn) next.standIn = { ...(program.standIn ?? NO_STAND_IN), ...input.standIn };
  if (input.holdPeriodHours !== undefined) next.holdPeriodHours = input.holdPeriodHours;
  return next;
}
