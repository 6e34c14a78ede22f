// An answer as the client (client.ts) received it, from either transport: what interpret()
// (responses.ts) reads, with the bytes, the request it answers and the token that request carried.
import { bodyText } from './body.js';
import type { ReceivedResponse } from './responses.js';

/** An answer as received, its text decoded when first read. */
export class RawResponse implements ReceivedResponse {
  private decoded?: string;

  constructor(
    readonly status: number,
    readonly headers: Record<string, string | string[] | undefined>,
    /** The body's bytes as received. */
    readonly bytes: Buffer,
    readonly durationMs: number,
    readonly method: string,
    readonly url: URL,
    /** The bearer token the request carried (to tell a renewed token from the same one). */
    readonly token: string | undefined,
  ) {}

  /** The body as text (src/api/body.ts). */
  get text(): string {
    return (this.decoded ??= bodyText(this.bytes));
  }
}
