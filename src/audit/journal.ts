// The audit journal: one JSON line per mutating API call, in the user's data directory
// (mode 0600 in a 0700 directory). Rotated at a size limit, keeping the last few files.
// Entries never hold a PIN, PIN block, token, API key or full PAN: everything passes through
// redactValue/maskPansInText before it is written.
import { appendFileSync, chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { dataDir } from '../config/paths.js';
import { maskPansInText, redactValue } from '../core/redact.js';

export interface JournalEntry {
  time: string;
  profile: string;
  env: string;
  baseUrl: string;
  operator: string;
  /** The command line, secrets and PANs removed. */
  command: string;
  method: string;
  path: string;
  status: number | null;
  message: string;
  /** Identifiers the call affected (card ids, transaction ids, …). */
  ids: string[];
  durationMs: number;
  reason?: string;
}

export interface JournalOptions {
  dir?: string;
  /** Rotate when the current file passes this size. */
  maxBytes?: number;
  /** How many rotated files to keep besides the current one. */
  keep?: number;
}

const CURRENT = 'journal.ndjson';

export class Journal {
  readonly dir: string;
  private readonly maxBytes: number;
  private readonly keep: number;

  constructor(env: Record<string, string | undefined>, options: JournalOptions = {}) {
    this.dir = options.dir ?? env.CARDCTL_JOURNAL_DIR ?? join(dataDir(env), 'journal');
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.keep = options.keep ?? 5;
  }

  get file(): string {
    return join(this.dir, CURRENT);
  }

  append(entry: JournalEntry): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    this.rotateIfNeeded();
    const safe = redactValue(entry) as JournalEntry;
    safe.command = maskPansInText(entry.command);
    appendFileSync(this.file, `${JSON.stringify(safe)}\n`, { mode: 0o600 });
    chmodSync(this.file, 0o600);
  }

  /** Every entry, oldest first, across rotated files. Unreadable lines are skipped. */
  *read(): Generator<JournalEntry> {
    for (const file of this.files()) {
      const text = readFileSync(file, 'utf8');
      for (const line of text.split('\n')) {
        if (!line.trim()) continue;
        try {
          yield JSON.parse(line) as JournalEntry;
        } catch {
          // A line cut short by a crash: skip it rather than fail the whole history.
        }
      }
    }
  }

  /** Rotated files first (oldest first), then the current one. */
  files(): string[] {
    if (!existsSync(this.dir)) return [];
    const rotated = readdirSync(this.dir)
      .map((name) => /^journal\.(\d+)\.ndjson$/.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .sort((a, b) => Number(b[1]) - Number(a[1]))
      .map((m) => join(this.dir, m[0]));
    return existsSync(this.file) ? [...rotated, this.file] : rotated;
  }

  private rotateIfNeeded(): void {
    if (!existsSync(this.file) || statSync(this.file).size < this.maxBytes) return;
    // journal.ndjson → journal.1.ndjson → journal.2.ndjson …; the oldest beyond `keep` goes.
    const oldest = join(this.dir, `journal.${this.keep}.ndjson`);
    if (existsSync(oldest)) rmSync(oldest);
    for (let i = this.keep - 1; i >= 1; i--) {
      const from = join(this.dir, `journal.${i}.ndjson`);
      if (existsSync(from)) renameSync(from, join(this.dir, `journal.${i + 1}.ndjson`));
    }
    renameSync(this.file, join(this.dir, 'journal.1.ndjson'));
  }
}

export function operatorName(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** Identifiers worth recording from a request path and a response's data. */
export function affectedIds(path: string, data: unknown): string[] {
  const ids = new Set<string>();
  const cardMatch = /\/institutions\/cards\/(?:pin\/)?([^/?]+)/.exec(path);
  if (cardMatch?.[1] && cardMatch[1] !== 'pin') ids.add(decodeURIComponent(cardMatch[1]));
  const other = /\/institutions\/(?:oauth|users)\/([^/?]+)/.exec(path);
  if (other?.[1] && other[1] !== 'create') ids.add(decodeURIComponent(other[1]));
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    const record = data as Record<string, unknown>;
    for (const key of ['id', '_id', 'transactionId']) {
      if (typeof record[key] === 'string') ids.add(record[key] as string);
    }
  }
  return [...ids];
}

export { isMutation } from './mutation.js';
