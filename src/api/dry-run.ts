// --dry-run: the API client prints the mutation it would send and stops the command with
// DryRunStop, which the entry point turns into exit 0. GETs still go out (a command may need
// them to build its body); nothing that changes state does.
import { redactUrl, redactValue } from '../core/redact.js';

/** What a dry run shows of a request: secrets and PIN blocks redacted, PANs masked. */
export interface DryRunRequest {
  dryRun: true;
  method: string;
  url: string;
  body?: unknown;
}

/**
 * Thrown by the API client instead of sending a mutation under --dry-run: not an error but the
 * command's end, which the entry point (src/app/run-cli.ts) knows by its class and answers with exit 0.
 */
export class DryRunStop extends Error {
  constructor(readonly request: DryRunRequest) {
    super(`dry run: ${request.method} ${request.url} was not sent`);
    this.name = 'DryRunStop';
  }
}

export function describeDryRun(method: string, url: URL | string, body: unknown, rawBody?: string): DryRunRequest {
  const shown: DryRunRequest = { dryRun: true, method, url: redactUrl(url) };
  if (body !== undefined) shown.body = redactValue(body);
  else if (rawBody !== undefined) shown.body = '[form body, not shown]';
  return shown;
}

/** Text for a terminal or a pipe; JSON (one object) with -o json/ndjson. */
export function formatDryRun(request: DryRunRequest, json: boolean): string {
  if (json) return `${JSON.stringify(request)}\n`;
  const body = request.body === undefined ? '' : `${JSON.stringify(request.body, null, 2)}\n`;
  return `dry run, nothing sent: ${request.method} ${request.url}\n${body}`;
}
