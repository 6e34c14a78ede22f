// An answer's body as both transports hand it over (src/api/node-http.ts, src/api/undici.ts): its
// bytes as received, gathered in a buffer of their own, and read as text.

/** An answer's bytes: its chunks, joined at the end. */
export class OwnBody {
  private chunks: Buffer[] = [];

  begin(): void {
    this.chunks = [];
  }

  append(chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  bytes(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
  }
}

/** The body as text: UTF-8, a byte-order mark dropped (as undici's `body.text()` and fetch read it). */
export function bodyText(body: Buffer): string {
  const bom = body.length > 2 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
  return body.toString('utf8', bom ? 3 : 0);
}
