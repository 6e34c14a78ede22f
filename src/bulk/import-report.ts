// The import report: NDJSON, one line per row handled — {line, realId, outcome, cardId | error}.
// Entries are written in batches (a synchronous write of every REPORT_BATCH_ROWS entries, or
// REPORT_BATCH_MS after the first one waiting, on close, and when the process exits), so a killed
// run leaves a report `--resume` can trust up to its last complete line, missing at most the
// last batch. A row missing is sent again, which is safe: an import is refused as a CONFLICT
// once its realId is there, and every bulk card verb is idempotent or looks the card up first.
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import type { RunHeader } from './report.js';
import { SetupError } from '../core/errors.js';
import { redactBodyText } from '../core/redact.js';
import { writeAllSync } from '../core/write-file.js';

export type ImportOutcome = 'imported' | 'invalid' | 'failed' | 'skipped' | 'exists';

export interface ReportEntry {
  line: number;
  realId?: string;
  outcome: ImportOutcome;
  cardId?: string;
  error?: string;
}

export interface ReportWriter<E = ReportEntry> {
  write(entry: E): void;
  close(): void;
}

/**
 * Opens an NDJSON report (import's, or a bulk run's); `append` continues an earlier run's.
 * `header`: a line written first when the report starts empty (a shard's run, src/bulk/report.ts).
 */
export function openReport<E = ReportEntry>(path: string, append: boolean, header?: string): ReportWriter<E> {
  const needsNewline = append && existsSync(path) && !endsWithNewline(path);
  const empty = !append || !existsSync(path) || statSync(path).size === 0;
  const fd = openSync(path, append ? 'a' : 'w', 0o600);
  // A write that fails (a full disk) ends the run at the next write() or close(): one error
  // naming the report. A line it tore stays alone: --resume appends after a newline and skips it.
  let failure: SetupError | undefined;
  const writeOrNote = (text: string) => {
    if (failure || !text) return;
    try {
      writeAllSync(fd, text);
    } catch (error) {
      failure = SetupError.fromFs('cannot write the report', path, error, 'free some space, then run again with --resume');
    }
  };
  writeOrNote(`${needsNewline ? '\n' : ''}${header !== undefined && empty ? header : ''}`);
  let closed = false;
  let pending = '';
  let rows = 0;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    writeOrNote(pending);
    pending = '';
    rows = 0;
  };
  process.on('exit', flush);
  return {
    write(entry) {
      if (closed) return;
      if (failure) throw failure;
      pending += `${JSON.stringify(entry, disclosedText)}\n`;
      if (++rows >= REPORT_BATCH_ROWS) flush();
      else timer ??= setTimeout(flush, REPORT_BATCH_MS).unref();
      if (failure) throw failure;
    },
    close() {
      if (closed) return;
      closed = true;
      flush();
      process.off('exit', flush);
      closeSync(fd);
      if (failure) throw failure;
    },
  };
}

/**
 * JSON.stringify's replacer for a report line: a row's message or error is the server's or a
 * file's free text, disclosed by the one rule (redactBodyText); the row's identity (line, row, id,
 * realId), which --resume compares, stays exact.
 */
function disclosedText(key: string, value: unknown): unknown {
  return (key === 'message' || key === 'error') && typeof value === 'string' ? redactBodyText(value) : value;
}

/** A report write per this many settled rows at most (one write per row was a system call per row)… */
const REPORT_BATCH_ROWS = 64;
/** …and none waits longer than this: the rows a SIGKILL can cost a --resume. */
const REPORT_BATCH_MS = 200;

function endsWithNewline(path: string): boolean {
  const size = statSync(path).size;
  if (size === 0) return true;
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(1);
    readSync(fd, buffer, 0, 1, size - 1);
    return buffer[0] === 0x0a;
  } finally {
    closeSync(fd);
  }
}

export interface ResumeState {
  /** realIds the report records as imported or already existing, with their card id when known. */
  done: Map<string, string | undefined>;
  entries: number;
  /** The run the report's first line names (none: the report is empty or not there yet). */
  run?: RunHeader;
}

const OUTCOMES: readonly ImportOutcome[] = ['imported', 'invalid', 'failed', 'skipped', 'exists'];

/** An import report's row entry, when the value is one. */
export function isImportEntry(value: unknown): value is ReportEntry {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const entry = value as Record<string, unknown>;
  return Number.isInteger(entry.line) && (entry.line as number) >= 1 && OUTCOMES.includes(entry.outcome as ImportOutcome)
    && (entry.realId === undefined || typeof entry.realId === 'string') && (entry.cardId === undefined || typeof entry.cardId === 'string');
}

/**
 * Reads a report for `--resume`, strictly (src/bulk/report.ts, readRunReport): its first line
 * names the run, every other line is an import entry, but for a line torn by a killed run.
 * Throws RunReportError otherwise.
 */
export async function readReport(path: string, onRun?: (run: RunHeader) => void): Promise<ResumeState> {
  const done = new Map<string, string | undefined>();
  let entries = 0;
  const { readRunReport } = await import('./report.js');
  const { run } = await readRunReport(path, { isEntry: isImportEntry, tornPrefix: '{"line":', what: 'an import report (line, realId, outcome imported|exists|invalid|failed|skipped)' }, (entry) => {
    entries++;
    if (entry.realId === undefined) return;
    if (entry.outcome === 'imported' || entry.outcome === 'exists' || entry.outcome === 'skipped') {
      done.set(entry.realId, entry.cardId ?? done.get(entry.realId));
    }
  }, { run: onRun });
  return { done, entries, ...(run ? { run } : {}) };
}
