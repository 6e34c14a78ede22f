// Card programs of an institution (a sandbox helper: the reference API has no such endpoint):
// list, create from the defaults, change. A program's PAN range is its institution's alone (no
// program of another institution overlaps it), and stays once the program has issued a card:
// so every card lies in a range of its own institution, and nothing an institution sees of
// its own numbers depends on another's cards.
import type { CardProgram, CardProgramInput, StandInPolicy, UpdateCardProgramInput } from '../../api/schemas.js';
import type { Principal } from '../auth.js';
import type { SandboxDeps } from '../deps.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { defaultCardProgram, programRange } from '../tenancy.js';
import { changeWebhookConfig } from './webhook-config.js';

/** A program without a stand-in policy declines (96) when the webhook gives no usable answer. */
const NO_STAND_IN: StandInPolicy = { mode: 'decline', maxAmount: 0, dailyAmount: 0 };

export function cardProgramService({ store, clock }: Pick<SandboxDeps, 'store' | 'clock'>) {
  /** A BIN belongs to one issuer: a range that overlaps another institution's program is refused. */
  function assertRangeOfItsOwn(program: CardProgram): void {
    if (store.cardPrograms.rangeHeldByOthers(program.institution, program.panPrefix, program.panLength)) {
      throw conflict(`${program.panLength}-digit card numbers under ${program.panPrefix} overlap the range of another institution's card program`, 'panPrefix');
    }
  }

  return {
    list(institutionId: string): CardProgram[] {
      return store.cardPrograms.listByInstitution(institutionId);
    },

    /** Defaults are those of the seeded program, with the PAN range of the institution's first program. */
    create(principal: Principal, input: CardProgramInput): CardProgram {
      const { institutionId, userId } = principal;
      const now = clock.now();
      return store.transaction(() => {
        const first = store.cardPrograms.listByInstitution(institutionId)[0];
        const base = defaultCardProgram({
          institutionId, createdBy: userId ?? institutionId, now, name: input.name,
          panPrefix: input.panPrefix ?? first?.panPrefix,
          panLength: input.panLength ?? (input.panPrefix === undefined ? first?.panLength : undefined),
        });
        const program = applyProgramChanges(base, input, now);
        assertRangeOfItsOwn(program);
        store.cardPrograms.insert(program);
        return program;
      });
    },

    update(institutionId: string, programId: string, input: UpdateCardProgramInput): CardProgram {
      return store.transaction(() => {
        const current = store.cardPrograms.get(institutionId, programId);
        if (!current) throw notFound(`card program ${programId}`);
        const next = applyProgramChanges(current, input, clock.now());
        if (next.panPrefix !== current.panPrefix || next.panLength !== current.panLength) {
          // Its cards keep their numbers: the range they were drawn from stays the program's.
          if (store.cards.programHasCards(current.id)) throw conflict(`card program ${programId} has issued cards: its panPrefix and panLength cannot change`);
          assertRangeOfItsOwn(next);
        }
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
  if (input.webHookConfig) next.webHookConfig = changeWebhookConfig(program.webHookConfig, input.webHookConfig, now);
  if (input.standIn) next.standIn = { ...(program.standIn ?? NO_STAND_IN), ...input.standIn };
  if (input.holdPeriodHours !== undefined) next.holdPeriodHours = input.holdPeriodHours;
  return next;
}
