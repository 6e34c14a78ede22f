// The audit journal: one JSON line per mutating API call, in the user's data directory
// (mode 0600 in a 0700 directory). Rotated at a size limit, keeping the last few files.
// Entries never hold a PIN, PIN block, token, API key or full PAN: append() is the one write
// point, and every string of an entry (free text of --reason, the command line, messages, ids)
// passes through scrubText there: known secrets replaced whole, card numbers masked also when
// written with spaces or dashes.
import { chmodSync, closeSync, existsSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { dataDir } from '../config/paths.js';
import { SECRET_ENV_VARS } from '../config/store.js';
import { maskPansInText, redactNode, secretReplacer } from '../core/redact.js';
import { writeAllSync } from '../core/write-file.js';

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
  /**
   * `intent`: written before the request was sent (its outcome is the next line of the same
   * method and path); `found`: what a look-up after a lost answer or a conflict found (the ids a
   * write left); absent: the outcome of the request.
   */
  phase?: 'intent' | 'found';
  /** The card's reference, when the request names one (a create). */
  reference?: string;
  /** Made through a tool call of an MCP client (`cardctl mcp`), not typed. */
  via?: 'mcp';
  /** That client's name/version, as it introduced itself. */
  client?: string;
}

export interface JournalOptions {
  dir?: string;
  /** Rotate when the current file passes this size. */
  maxBytes?: number;
  /** How many rotated files to keep besides the current one. */
  keep?: number;
}

const CURRENT = 'journal.ndjson';
/**
 * The current file stays open between entries that come this close together, and is looked at
 * again (still the current file? closed if not, or when idle) this often. A bulk run appends an
 * entry per card: an open and a close for each were a third of what its journal cost.
 */
const KEEP_OPEN_MS = 200;

export class Journal {
  readonly dir: string;
  private readonly maxBytes: number;
  private readonly keep: number;
  /** Whether this instance has made sure of the directory (0700) and the file (0600): a bulk
   * run appends thousands of entries, and a mkdir and two chmods for each were most of the
   * time its journal took. */
  private ensured = false;
  /** The current file's size as this instance last knew it (undefined: not looked at yet); kept
   * up by its own appends, so that the rotation check is no stat per entry. */
  private size: number | undefined;
  /** The current file, open for appending while entries keep coming (KEEP_OPEN_MS). */
  private fd: number | undefined;
  private appendedSinceCheck = false;
  private nextCheck: NodeJS.Timeout | undefined;
  /** The scrubber of the last secrets given, made again only when they change. */
  private scrubber: { secrets: ReadonlyArray<string | undefined>; scrub: (text: string) => string } | undefined;
  /** Lines appended with `later`, not written yet, and their size in bytes. */
  private waiting = '';
  private waitingBytes = 0;
  /** The current file is new (or rotated): its mode is set once the next lines are written. */
  private modeDue = false;

  constructor(private readonly env: Record<string, string | undefined>, options: JournalOptions = {}) {
    this.dir = options.dir ?? env.CARDCTL_JOURNAL_DIR ?? join(dataDir(env), 'journal');
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.keep = options.keep ?? 5;
  }

  get file(): string {
    return join(this.dir, CURRENT);
  }

  /**
   * Writes one entry. `secrets`: values to remove wherever they appear (the profile's token, API
   * key, webhook secret …); the secret variables of this journal's environment (SECRET_ENV_VARS) are
   * added here. `later`: the line waits for flush() (a bulk run writes the lines of a tick at
   * once: src/audit/record.ts); otherwise it is written before append returns.
   */
  append(entry: JournalEntry, secrets: ReadonlyArray<string | undefined> = [], { later = false } = {}): void {
    const scrub = this.scrubberOf(secrets);
    // redactValue's rules and then the scrubber for every string, in the one pass of JSON.stringify.
    const line = `${JSON.stringify(entry, function (this: unknown, key: string, value: unknown) {
      const redacted = redactNode(value, Array.isArray(this) ? undefined : key);
      return typeof redacted === 'string' ? scrub(redacted) : redacted;
    })}\n`;
    const bytes = Buffer.byteLength(line);
    if (!this.ensured) {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      chmodSync(this.dir, 0o700);
    }
    // Rotated where it would be if every line were written at once: the lines waiting go to the
    // file they would have been in.
    if (this.size === undefined || this.size + this.waitingBytes >= this.maxBytes) {
      this.flush();
      if (this.rotateIfNeeded() || !this.ensured) this.modeDue = true;
      this.ensured = true;
    }
    this.waiting += line;
    this.waitingBytes += bytes;
    if (!later) this.flush();
  }

  /** Writes the lines waiting (append's `later`), if any. */
  flush(): void {
    if (!this.waiting) return;
    const lines = Buffer.from(this.waiting);
    this.waiting = '';
    this.waitingBytes = 0;
    this.write(lines);
    this.size = (this.size ?? 0) + lines.length;
    if (this.modeDue) {
      chmodSync(this.file, 0o600);
      this.modeDue = false;
    }
  }

  /**
   * Appends whole lines in one write. A file that does not end with a newline (a write cut short
   * by a full disk or a crash, here or in another process) gets one first, so the torn line stays
   * alone (read() skips it) and never swallows the next entry. After a failed write the file is
   * closed, and looked at again by the next one.
   */
  private write(lines: Buffer): void {
    if (this.fd === undefined) {
      this.fd = openSync(this.file, 'a+', 0o600);
      this.nextCheck = setTimeout(() => this.checkOpenFile(), KEEP_OPEN_MS).unref();
      if (!endsWithNewline(this.fd)) lines = Buffer.concat([NEWLINE, lines]);
    }
    try {
      writeAllSync(this.fd, lines);
    } catch (error) {
      this.close();
      throw error;
    }
    this.appendedSinceCheck = true;
  }

  /**
   * Closes the file when no entry came since the last look, or when it is no longer the current
   * one (rotated or removed by another process): the next entry opens the current file again.
   */
  private checkOpenFile(): void {
    if (this.fd === undefined) return;
    try {
      if (this.appendedSinceCheck && sameFile(statSync(this.file, { throwIfNoEntry: false }), fstatSync(this.fd))) {
        this.appendedSinceCheck = false;
        this.nextCheck = setTimeout(() => this.checkOpenFile(), KEEP_OPEN_MS).unref();
        return;
      }
    } catch {
      // Cannot tell: close it, and the next entry opens the current file (or reports why not).
    }
    this.close();
  }

  /** Writes the lines waiting and closes the current file if it is open (later entries open it again). */
  close(): void {
    this.flush();
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    clearTimeout(this.nextCheck);
    try {
      closeSync(fd);
    } catch {
      // Nothing was left to write: every entry was written when appended.
    }
  }

  /** The scrubber of `secrets` and this environment's: the last one made, when they are the same. */
  private scrubberOf(secrets: ReadonlyArray<string | undefined>): (text: string) => string {
    const last = this.scrubber?.secrets;
    const same = last !== undefined && last.length === secrets.length && secrets.every((secret, i) => secret === last[i]);
    if (!same) this.scrubber = { secrets, scrub: scrubberFor([...secrets, ...SECRET_ENV_VARS.map((name) => this.env[name])]) };
    return this.scrubber!.scrub;
  }

  /** How many lines the last read() skipped: torn by a full disk or a crash, or not JSON. */
  skippedLines = 0;

  /** Every entry, oldest first, across rotated files. Unreadable lines are skipped and counted (skippedLines). */
  *read(): Generator<JournalEntry> {
    this.flush();
    this.skippedLines = 0;
    for (const file of this.files()) {
      const text = readFileSync(file, 'utf8');
      for (const line of text.split('\n')) {
        if (!line.trim()) continue;
        let entry: JournalEntry;
        try {
          entry = JSON.parse(line) as JournalEntry;
        } catch {
          // A line cut short by a full disk or a crash: skip it rather than fail the whole history.
          this.skippedLines++;
          continue;
        }
        yield entry;
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

  /** Rotates when the current file has reached maxBytes; true when it did. */
  private rotateIfNeeded(): boolean {
    if (this.size !== undefined && this.size < this.maxBytes) return false;
    // Looked at on the first entry and when this instance's count says the limit is reached (other
    // processes append too: the file may be larger, or rotated by one of them meanwhile).
    const size = statSync(this.file, { throwIfNoEntry: false })?.size;
    this.size = size ?? 0;
    if (size === undefined || size < this.maxBytes) return false;
    // journal.ndjson → journal.1.ndjson → journal.2.ndjson …; the oldest beyond `keep` goes.
    const oldest = join(this.dir, `journal.${this.keep}.ndjson`);
    if (existsSync(oldest)) rmSync(oldest);
    for (let i = this.keep - 1; i >= 1; i--) {
      const from = join(this.dir, `journal.${i}.ndjson`);
      if (existsSync(from)) renameSync(from, join(this.dir, `journal.${i + 1}.ndjson`));
    }
    this.close();
    renameSync(this.file, join(this.dir, 'journal.1.ndjson'));
    this.size = 0;
    return true;
  }
}

/** Secrets shorter than this are not searched for in text (a test's token "t" is no secret). */
const MIN_SECRET_LENGTH = 8;

/** Free text made safe to record: known secrets replaced whole, Luhn-valid card numbers masked (with or without separators). */
export function scrubText(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  return scrubberFor(secrets)(text);
}

/** scrubText with the secrets sorted out once, for the entries of one run. */
function scrubberFor(secrets: ReadonlyArray<string | undefined>): (text: string) => string {
  const replaceSecrets = secretReplacer(secrets.filter((s): s is string => typeof s === 'string' && s.trim().length >= MIN_SECRET_LENGTH));
  return (text) => maskPansInText(replaceSecrets(text));
}

const NEWLINE = Buffer.from('\n');

/** Whether the file open at `fd` (for reading too) is empty or ends with a newline. */
function endsWithNewline(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return true;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] === NEWLINE[0];
}

function sameFile(a: { ino: number; dev: number } | undefined, b: { ino: number; dev: number }): boolean {
  return a !== undefined && a.ino === b.ino && a.dev === b.dev;
}

let operator: string | undefined;

/** The OS user running cardctl (looked up once per process: an entry per card in a bulk run). */
export function operatorName(): string {
  if (operator === undefined) {
    try {
      operator = userInfo().username;
    } catch {
      operator = 'unknown';
    }
  }
  return operator;
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
