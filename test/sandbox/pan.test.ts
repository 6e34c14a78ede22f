import { describe, expect, test } from 'vitest';
import type { CardProgram } from '../../src/api/schemas.js';
import { DomainError, httpErrorOf } from '../../src/sandbox/errors.js';
import { luhnCheckDigit, luhnValid, maskPan, nextProgramPan, panFromBin, panInProgramRange } from '../../src/sandbox/pan.js';
import { defaultCardProgram, programRange } from '../../src/sandbox/tenancy.js';

function program(overrides: Partial<CardProgram> = {}): CardProgram {
  return { ...defaultCardProgram({ institutionId: 'i', createdBy: 'u', now: new Date() }), ...overrides };
}

describe('Luhn', () => {
  test.each(['79927398713', '4111111111111111', '5500000000000004', '378282246310005'])('%s is valid', (pan) => {
    expect(luhnValid(pan)).toBe(true);
    expect(luhnCheckDigit(pan.slice(0, -1))).toBe(pan.slice(-1));
  });
  test.each(['79927398710', '4111111111111112', '12', 'abcd'])('%s is not', (pan) => {
    expect(luhnValid(pan)).toBe(false);
  });
  test('masking keeps the first 6 and last 4', () => {
    expect(maskPan('5060990000000008')).toBe('506099******0008');
    expect(maskPan('5060990000000000008')).toBe('506099*********0008');
  });
});

describe('program card numbers', () => {
  test('sequential numbers from panStart, Luhn-valid, in range, skipping taken ones', () => {
    const taken = new Set<string>();
    let current = program();
    const issued: string[] = [];
    for (let i = 0; i < 50; i++) {
      const { pan, counter } = nextProgramPan(current, (candidate) => taken.has(candidate) || candidate.endsWith('7'));
      expect(luhnValid(pan) && panInProgramRange(current, pan)).toBe(true);
      expect(pan.endsWith('7')).toBe(false);
      taken.add(pan);
      issued.push(pan);
      current = { ...current, panSequenceCounter: counter };
    }
    expect(new Set(issued).size).toBe(50);
    expect([...issued].sort()).toEqual(issued);
  });

  test('random numbers stay in the range', () => {
    const random = program({ randomCardNumber: true, ...programRange('627123', 19) });
    for (let i = 0; i < 200; i++) {
      const { pan } = nextProgramPan(random, () => false);
      expect(pan).toHaveLength(19);
      expect(pan.startsWith('627123')).toBe(true);
      expect(luhnValid(pan)).toBe(true);
    }
  });

  test('an exhausted range is a 409, not a crash', () => {
    const tiny = program({ panStart: '5060990000000008', panEnd: '5060990000000016' });
    const taken = new Set<string>();
    let current = tiny;
    for (;;) {
      try {
        const { pan, counter } = nextProgramPan(current, (c) => taken.has(c));
        taken.add(pan);
        current = { ...current, panSequenceCounter: counter };
      } catch (error) {
        expect(error).toBeInstanceOf(DomainError);
        expect(httpErrorOf(error as DomainError).statusCode).toBe(409);
        break;
      }
    }
    expect(taken.size).toBe(2);
  });

  test('imported cards get a 16-digit Luhn number under their BIN', () => {
    const pan = panFromBin('539983', () => false);
    expect(pan).toMatch(/^539983\d{10}$/);
    expect(luhnValid(pan)).toBe(true);
  });
});
