import { describe, expect, it } from 'vitest';
import { AuthError, NetworkError, RejectedError } from '../../src/core/errors.js';
import type { ReportEntry } from '../../src/bulk/import-report.js';
import type { SourceRow } from '../../src/bulk/readers.js';
import { runImport, type ImportRunOptions } from '../../src/bulk/import-runner.js';
import { validImportRow } from '../helpers/import-row.js';

function row(i: number, overrides: Record<string, unknown> = {}): SourceRow {
  return {
    line: i + 1,
    value: validImportRow({ realId: `R${i}`, ...overrides }),
  };
}

async function* rowsOf(rows: SourceRow[], pulled?: { count: number }): AsyncGenerator<SourceRow> {
  for (const r of rows) {
    if (pulled) pulled.count++;
    yield r;
  }
}

function memoryReport() {
  const entries: ReportEntry[] = [];
  return { entries, write: (e: ReportEntry) => void entries.push(e), close() {} };
}

const base = (over: Partial<ImportRunOptions>): ImportRunOptions => ({
  rows: rowsOf([]),
  concurrency: 4,
  signal: new AbortController().signal,
  sleep: async () => {},
  send: async (body) => ({ cardId: `card_${body.realId}` }),
  ...over,
});

describe('runImport', () => {
  it('imports valid rows with at most `concurrency` in flight, and reports invalid ones with their line', async () => {
    let inFlight = 0;
    let peak = 0;
    const report = memoryReport();
    const rows = Array.from({ length: 50 }, (_, i) => (i % 10 === 3 ? row(i, { email: 'nope' }) : row(i)));
    const result = await runImport(base({
      rows: rowsOf(rows),
      concurrency: 5,
      report,
      async send(body) {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 2));
        inFlight--;
        return { cardId: `card_${body.realId}` };
      },
    }));
    expect(peak).toBe(5);
    expect(result.stats).toMatchObject({ imported: 45, invalid: 5, failed: 0, rows: 50 });
    const invalid = report.entries.filter((e) => e.outcome === 'invalid');
    expect(invalid.map((e) => e.line)).toEqual([4, 14, 24, 34, 44]);
    expect(invalid[0]).toMatchObject({ realId: 'R3', error: expect.stringMatching(/^email:/) });
    expect(report.entries.find((e) => e.realId === 'R0')).toEqual({ line: 1, realId: 'R0', outcome: 'imported', cardId: 'card_R0' });
  });

  it('never reads ahead of the free request slots', async () => {
    const pulled = { count: 0 };
    let maxAhead = 0;
    let settled = 0;
    await runImport(base({
      rows: rowsOf(Array.from({ length: 40 }, (_, i) => row(i)), pulled),
      concurrency: 3,
      async send(body) {
        maxAhead = Math.max(maxAhead, pulled.count - settled);
        await new Promise((r) => setTimeout(r, 1));
        settled++;
        return { cardId: body.realId };
      },
    }));
    expect(maxAhead).toBeLessThanOrEqual(3);
  });

  it('after a timeout, looks the realId up before sending again: found means "exists", sent once', async () => {
    const sent: string[] = [];
    const result = await runImport(base({
      rows: rowsOf([row(1)]),
      async send(body) {
        sent.push(body.realId);
        throw new NetworkError('no answer within 30 s (timeout)', { code: 'TIMEOUT' });
      },
      lookup: async (realId) => (realId === 'R1' ? { cardId: 'card_found' } : undefined),
    }));
    expect(sent).toEqual(['R1']);
    expect(result.stats).toMatchObject({ exists: 1, failed: 0 });
  });

  it('after a reset, sends again when the lookup finds nothing; a 409 on the retry means "exists"', async () => {
    let attempts = 0;
    const report = memoryReport();
    await runImport(base({
      rows: rowsOf([row(1), row(2)]),
      report,
      async send(body) {
        attempts++;
        if (body.realId === 'R1') {
          if (attempts <= 2) throw new NetworkError('connection reset', { code: 'ECONNRESET' });
          return { cardId: 'card_R1' };
        }
        throw new RejectedError('rejected (409): realId exists', { status: 409, code: 'CONFLICT' });
      },
      lookup: async () => undefined,
      concurrency: 1,
    }));
    expect(report.entries).toEqual([
      { line: 2, realId: 'R1', outcome: 'imported', cardId: 'card_R1' },
      { line: 3, realId: 'R2', outcome: 'exists', cardId: undefined },
    ]);
  });

  it('a card found under the realId is "exists" only when it is the row\'s cardholder; another is a failed row', async () => {
    const report = memoryReport();
    const holder = (first: string) => ({ cardId: `card_${first}`, card: { id: `card_${first}`, customer: { firstName: first, lastName: 'OBI', emailAddress: 'ADA@example.com', phoneNumber: '+2348012345678' } } });
    const result = await runImport(base({
      rows: rowsOf([row(1), row(2)]),
      report,
      async send() {
        throw new RejectedError('rejected (409): realId exists', { status: 409, code: 'CONFLICT' });
      },
      lookup: async (realId) => holder(realId === 'R1' ? 'Ada' : 'Chidi'),
      concurrency: 1,
    }));
    expect(result.stats).toMatchObject({ exists: 1, failed: 1 });
    expect(report.entries[0]).toEqual({ line: 2, realId: 'R1', outcome: 'exists', cardId: 'card_Ada' });
    expect(report.entries[1]).toEqual({ line: 3, realId: 'R2', outcome: 'failed', error: 'realId "R2" is already imported for another cardholder (its firstName differs from this row\'s): not imported' });
  });

  it('the row\'s cardholder\'s card is "exists" only while usable as the row asks: suspended, it is a failed row naming it', async () => {
    const report = memoryReport();
    const card = (status: string) => ({ cardId: `card_${status}`, card: { id: `card_${status}`, status, expiryYear: 2099, expiryMonth: '12', customer: { firstName: 'Ada', lastName: 'OBI', emailAddress: 'ADA@example.com', phoneNumber: '+2348012345678' } } });
    const result = await runImport(base({
      rows: rowsOf([row(1), row(2)]),
      report,
      async send() {
        throw new RejectedError('rejected (409): realId exists', { status: 409, code: 'CONFLICT' });
      },
      lookup: async (realId) => card(realId === 'R1' ? 'active' : 'suspended'),
      concurrency: 1,
    }));
    expect(result.stats).toMatchObject({ exists: 1, failed: 1 });
    expect(report.entries[0]).toEqual({ line: 2, realId: 'R1', outcome: 'exists', cardId: 'card_active' });
    expect(report.entries[1]).toMatchObject({ line: 3, realId: 'R2', outcome: 'failed', error: 'realId "R2" is card card_suspended, and it is suspended: not imported again' });
  });

  it('gives up after the attempts allowed, and does not retry a 400', async () => {
    let calls = 0;
    const result = await runImport(base({
      rows: rowsOf([row(1), row(2)]),
      maxAttempts: 3,
      concurrency: 1,
      async send(body) {
        calls++;
        if (body.realId === 'R1') throw new NetworkError('connection refused', { code: 'ECONNREFUSED' });
        throw new RejectedError('rejected (400): bad', { status: 400 });
      },
    }));
    expect(calls).toBe(4);
    expect(result.stats).toMatchObject({ failed: 2 });
    expect(result.problems.map((p) => p.realId)).toEqual(['R1', 'R2']);
  });

  it('skips rows the report of an earlier run records, and duplicate realIds in the file', async () => {
    const sent: string[] = [];
    const result = await runImport(base({
      rows: rowsOf([row(1), row(2), row(3), { ...row(3), line: 9 }]),
      done: new Map([['R2', 'card_R2']]),
      send: async (body) => { sent.push(body.realId); return { cardId: body.realId }; },
    }));
    expect(sent.sort()).toEqual(['R1', 'R3']);
    expect(result.stats).toMatchObject({ imported: 2, skipped: 1, invalid: 1 });
  });

  it('stops at the first authentication failure (every row would fail the same way)', async () => {
    const result = await runImport(base({
      rows: rowsOf(Array.from({ length: 100 }, (_, i) => row(i))),
      concurrency: 2,
      send: async () => { throw new AuthError('unauthorized: bad API key', { status: 401 }); },
    }));
    expect(result.fatal).toBeInstanceOf(AuthError);
    expect(result.stats.rows).toBeLessThanOrEqual(3);
  });

  it('on interrupt stops pulling rows but lets requests in flight finish', async () => {
    const controller = new AbortController();
    const report = memoryReport();
    let started = 0;
    const result = await runImport(base({
      rows: rowsOf(Array.from({ length: 100 }, (_, i) => row(i))),
      concurrency: 4,
      signal: controller.signal,
      report,
      async send(body) {
        started++;
        if (started === 6) controller.abort();
        await new Promise((r) => setTimeout(r, 20));
        return { cardId: body.realId };
      },
    }));
    expect(result.interrupted).toBe(true);
    expect(started).toBeLessThan(12);
    expect(report.entries.length).toBe(started);
    expect(report.entries.every((e) => e.outcome === 'imported')).toBe(true);
  });

  it('returns a reader failure after settling what came before it', async () => {
    async function* broken(): AsyncGenerator<SourceRow> {
      yield row(1);
      throw new Error('disk on fire');
    }
    const result = await runImport(base({ rows: broken() }));
    expect(result.stats.imported).toBe(1);
    expect((result.readerError as Error).message).toBe('disk on fire');
  });
});
