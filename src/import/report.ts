// The import report: NDJSON, one line per row handled — {line, realId, outcome, cardId | error}.
// Each entry is written with a synchronous write as soon as the row is settled, so a killed
// import leaves a report that `--resume` can trust up to its last complete line.
import { closeSync, existsSync, openSync, readSync, statSync, writeSync } from 'node:fs';

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

/** Opens an NDJSON report (import's, or a bulk run's); `append` continues an earlier run's. */
export function openReport<E = ReportEntry>(path: string, append: boolean): ReportWriter<E> {
  const needsNewline = append && existsSync(path) && !endsWithNewline(path);
  const fd = openSync(path, append ? 'a' : 'w', 0o600);
  if (needsNewline) writeSync(fd, '\n');
  let closed = false;
  return {
    write(entry) {
      if (closed) return;
      writeSync(fd, `${JSON.stringify(entry)}\n`);
    },
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
    },
  };
}

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
}

/**
 * Reads a report for `--resume`; a torn last line (a killed run) is ignored. Read like an NDJSON
 * import file (strict UTF-8, bounded lines): a line too long or bytes that are not UTF-8 throw
 * ImportFileError.
 */
export async function readReport(path: string): Promise<ResumeState> {
  const done = new Map<string, string | undefined>();
  let entries = 0;
  if (!existsSync(path)) return { done, entries };
  const { createReadStream } = await import('node:fs');
  const { readNdjsonRows } = await import('./readers.js');
  const input = createReadStream(path);
  try {
    for await (const row of readNdjsonRows(input)) {
      if (row.error !== undefined) continue;
      const entry = row.value as Partial<ReportEntry> | null;
      if (!entry || typeof entry !== 'object') continue;
      entries++;
      if (typeof entry.realId !== 'string') continue;
      if (entry.outcome === 'imported' || entry.outcome === 'exists' || entry.outcome === 'skipped') {
        done.set(entry.realId, entry.cardId ?? done.get(entry.realId));
      }
    }
  } finally {
    input.destroy();
  }
  return { done, entries };
}
