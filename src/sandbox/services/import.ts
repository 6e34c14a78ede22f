// Importing an existing card: it becomes an ordinary card of the API key's institution, issued
// on the institution's first card program whose range holds its BIN, with a PAN under that BIN
// (a BIN outside the institution's ranges is refused: numbers there are another issuer's).
// realId is unique per institution; the clear defaultPIN is only hashed.
import { importReference } from '../../core/field-rules.js';
import type { Card, ImportCardBody } from '../../api/schemas.js';
import { buildCard, customerFromImport, endOfMonth } from '../cards.js';
import type { SandboxDeps } from '../deps.js';
import { conflict, invalidField, notPermitted } from '../errors.js';
import { panFromBin, programOfBin } from '../pan.js';
import { hashPin } from '../pin.js';
import { isUniqueViolation } from '../store/db.js';

export function importService({ store, clock }: Pick<SandboxDeps, 'store' | 'clock'>) {
  const alreadyImported = (realId: string) => conflict(`a card with realId "${realId}" was already imported`, 'realId');
  return {
    async importCard(institutionId: string, body: ImportCardBody): Promise<Card> {
      if (body.institutionId !== institutionId) throw notPermitted('institutionId is not the institution of this API key');
      if (store.cards.findByRealId(institutionId, body.realId)) throw alreadyImported(body.realId);
      const year = Number(body.card.expiration.slice(0, 4));
      const month = Number(body.card.expiration.slice(4, 6));
      const expiryDate = endOfMonth(year, month);
      if (body.endDate < body.startDate) throw invalidField('endDate', 'must not be before startDate');
      const pinHash = await hashPin(body.card.defaultPIN);
      const now = clock.now();

      return store.transaction(() => {
        if (store.cards.findByRealId(institutionId, body.realId)) throw alreadyImported(body.realId);
        const program = programOfBin(store.cardPrograms.listByInstitution(institutionId), body.card.bin);
        if (!program) throw invalidField('card.bin', 'is outside the ranges of this institution\'s card programs');
        const pan = panFromBin(program, body.card.bin, (candidate) => store.cards.panExists(candidate));
        const built = buildCard({
          institutionId,
          program,
          pan,
          referenceCode: importReference(body.realId),
          pinEnabled: true,
          account: { currency: '566', bankCode: program.bankCode, type: 'default', number: '' },
          customer: customerFromImport(body),
          embossingName: body.card.embossingName,
          expiryDate,
          status: body.active ? (expiryDate.getTime() < now.getTime() ? 'expired' : 'active') : 'inactive',
          seqNumber: program.seqNumber,
          enroll2FA: false,
          printCard: false,
          now,
        });
        const card: Card = { ...built, serviceCode: body.card.serviceCode || built.serviceCode };
        try {
          store.cards.insert({ card, pan, pinHash, realId: body.realId });
        } catch (error) {
          if (isUniqueViolation(error)) throw alreadyImported(body.realId);
          throw error;
        }
        return card;
      });
    },
  };
}
