// What a command hands the renderer (renderer.ts) besides its records: the run's output
// settings, the options of a list or a record, and the stream a paged list is written through.
import type { OutputFormat, OutputShape } from '../core/output-format.js';
import type { Column } from './column.js';

export interface OutputSettings {
  format: OutputFormat;
  fields?: string[];
  quiet: boolean;
  wide: boolean;
  /** --jq: filter the JSON value with jq (output/jq.ts). */
  jq?: string;
  /** -o ndjson with --jq: each result one line of compact JSON (`jq -c`). */
  compactJq?: boolean;
  /** --template: render each record with a template (output/template.ts). */
  template?: string;
  /** Pager for TTY tables (output/pager.ts); undefined for none. */
  pager?: { command: string; env: Record<string, string | undefined> };
  /** The run's Ctrl-C signal: it stops a --jq filter that is still running. */
  signal?: AbortSignal;
  /** --show-secrets: secret-named fields are shown as they are (card numbers stay masked). */
  showSecrets?: boolean;
  /**
   * The output goes to an assistant (an MCP tool call): no secret is shown, whatever the command
   * or --show-secrets asks.
   */
  neverSecrets?: boolean;
  /**
   * What the command prints, as it declares it: ready() checks --fields against it before
   * anything is sent, and the records are not checked again (a name the shape knows may be
   * absent from one answer, and exit 2 after a request would say that nothing was sent).
   */
  shape?: OutputShape;
}

/**
 * A command whose answer is a secret the person asked for (a client secret printed once when it
 * is made, a token they requested): the secret-named fields of that one output are shown, never
 * to an assistant (OutputSettings.neverSecrets).
 */
export interface CarriesSecret {
  carriesSecret?: boolean;
}

export interface ListOptions extends CarriesSecret {
  /** The body exactly as received, for `-o raw`. */
  raw?: string;
  /** Where the identifier is, for `--quiet` (default `id`). */
  idPath?: string;
  /** Said on stderr when a TTY list is empty. */
  emptyMessage?: string;
  /**
   * Records arrive over time (`tx tail`): every format writes each record at once — a TTY
   * table as header-less rows, --jq per record — and nothing goes through the pager.
   */
  live?: boolean;
}

export interface RecordOptions<R = unknown> extends CarriesSecret {
  raw?: string;
  idPath?: string;
  /** Rows for the key/value table; defaults to every leaf of the record. */
  rows?: Column<R>[];
}

export interface ListStream<R> {
  /**
   * Writes one page. The promise settles once the page is written and stdout can take more:
   * awaiting it before fetching the next page keeps a slow reader (`| less`, a pipe to a slow
   * process) from making pages pile up in memory. It rejects only when the first records show a
   * --fields name to be unknown (a UsageError, before anything is written); --jq/--template
   * errors surface from end(). `raw` gives the body as received, read only by `-o raw`.
   */
  write(records: Iterable<R>, raw?: () => string | undefined): Promise<void>;
  end(): Promise<void>;
}
