import { describe, expect, it } from 'vitest';
import { validateImportRow } from '../../src/import/row.js';

function validRow(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    realId: 'LEGACY-1', active: true, startDate: '2024-01-01', endDate: '2028-12-31',
    firstName: 'Ada', lastName: 'Obi', middleName: '', email: 'ada@example.com',
    address1: '1 Marina', address2: '', city: 'Lagos', state: 'Lagos', zip: '100001', country: 'NG',
    birthDate: '1990-01-31', phone: '+2348012345678', institutionId: 'inst_1',
    card: { expiration: '202812', serviceCode: '101', cardProduct: 'classic', embossingName: 'ADA OBI', defaultPIN: '1234', bin: '506099', cardState: 'active' },
    returnSecure: false,
    ...overrides,
  };
}

describe('validateImportRow', () => {
  it('accepts a complete row and normalises the phone', () => {
    const verdict = validateImportRow(validRow({ phone: '+234 801 234 5678' }));
    expect(verdict.ok).toBe(true);
    if (verdict.ok) expect(verdict.body.phone).toBe('+2348012345678');
  });

  it('accepts true/false text only for text (CSV) rows', () => {
    expect(validateImportRow(validRow({ active: 'true', returnSecure: 'FALSE' }), { text: true })).toMatchObject({ ok: true, body: { active: true, returnSecure: false } });
    expect(validateImportRow(validRow({ active: 'true' }))).toMatchObject({ ok: false, errors: ['active: must be true or false'] });
    expect(validateImportRow(validRow({ active: 'yes' }), { text: true })).toMatchObject({ ok: false });
  });

  it('names every bad field', () => {
    const verdict = validateImportRow(validRow({
      email: 'not-an-email', birthDate: '1990-02-30', extra: 1,
      card: { expiration: '202813', serviceCode: '101', cardProduct: 'x', embossingName: '', defaultPIN: '12', bin: '50', cardState: 'a' },
    }));
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    const fields = verdict.errors.map((e) => e.split(':')[0]);
    expect(fields).toEqual(expect.arrayContaining(['extra', 'birthDate', 'email', 'card.expiration', 'card.embossingName', 'card.defaultPIN', 'card.bin']));
  });

  it('requires every field, and the card object', () => {
    const { card: _card, realId: _r, ...rest } = validRow();
    const verdict = validateImportRow(rest);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.errors.join('\n')).toMatch(/realId: is required[\s\S]*card: is required/);
    expect(validateImportRow('x')).toMatchObject({ ok: false });
    expect(validateImportRow(null)).toMatchObject({ ok: false });
  });

  it('fills institutionId from the defaults when a row leaves it out or empty', () => {
    const { institutionId: _i, ...rest } = validRow();
    expect(validateImportRow(rest, { defaults: { institutionId: 'inst_9' } })).toMatchObject({ ok: true, body: { institutionId: 'inst_9' } });
    expect(validateImportRow(validRow({ institutionId: '' }), { defaults: { institutionId: 'inst_9' } })).toMatchObject({ ok: true, body: { institutionId: 'inst_9' } });
    expect(validateImportRow(validRow({ institutionId: '' }))).toMatchObject({ ok: false });
  });
});
