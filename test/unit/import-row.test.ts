import { describe, expect, it } from 'vitest';
import { validateImportRow } from '../../src/bulk/row.js';
import { validImportRow } from '../helpers/import-row.js';

describe('validateImportRow', () => {
  it('accepts a complete row and normalises the phone', () => {
    const verdict = validateImportRow(validImportRow({ phone: '+234 801 234 5678' }));
    expect(verdict.ok).toBe(true);
    if (verdict.ok) expect(verdict.body.phone).toBe('+2348012345678');
  });

  it('accepts true/false text only for text (CSV) rows', () => {
    expect(validateImportRow(validImportRow({ active: 'true', returnSecure: 'FALSE' }), { text: true })).toMatchObject({ ok: true, body: { active: true, returnSecure: false } });
    expect(validateImportRow(validImportRow({ active: 'true' }))).toMatchObject({ ok: false, errors: ['active: must be true or false'] });
    expect(validateImportRow(validImportRow({ active: 'yes' }), { text: true })).toMatchObject({ ok: false });
  });

  it('names every bad field', () => {
    const verdict = validateImportRow(validImportRow({
      email: 'not-an-email', birthDate: '1990-02-30', extra: 1,
      card: { expiration: '202813', serviceCode: '101', cardProduct: 'x', embossingName: '', defaultPIN: '12', bin: '50', cardState: 'a' },
    }));
    expect(verdict.ok).toBe(false);
    if (verdict.ok) return;
    const fields = verdict.errors.map((e) => e.split(':')[0]);
    expect(fields).toEqual(expect.arrayContaining(['extra', 'birthDate', 'email', 'card.expiration', 'card.embossingName', 'card.defaultPIN', 'card.bin']));
  });

  it('requires every field, and the card object', () => {
    const { card: _card, realId: _r, ...rest } = validImportRow();
    const verdict = validateImportRow(rest);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.errors.join('\n')).toMatch(/realId: is required[\s\S]*card: is required/);
    expect(validateImportRow('x')).toMatchObject({ ok: false });
    expect(validateImportRow(null)).toMatchObject({ ok: false });
  });

  it('fills institutionId from the defaults when a row leaves it out or empty', () => {
    const { institutionId: _i, ...rest } = validImportRow();
    expect(validateImportRow(rest, { defaults: { institutionId: 'inst_9' } })).toMatchObject({ ok: true, body: { institutionId: 'inst_9' } });
    expect(validateImportRow(validImportRow({ institutionId: '' }), { defaults: { institutionId: 'inst_9' } })).toMatchObject({ ok: true, body: { institutionId: 'inst_9' } });
    expect(validateImportRow(validImportRow({ institutionId: '' }))).toMatchObject({ ok: false });
  });
});
