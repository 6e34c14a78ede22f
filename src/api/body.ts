// An answer's body as both transports hand it over (src/api/node-http.ts, src/api/undici.ts): its
// bytes as received, gathered in a buffer of their own (OwnBody) or in the PageBuffer the request
// names. Most answers are read as text; a streamed list's page is read from its bytes a record at
// a time (src/api/list-body.ts).

/** Where a transport gathers an answer's bytes: begin() as the answer starts, append() each chunk, bytes() at its end. */
export interface BodySink {
  begin(): void;
  append(chunk: Buffer): void;
  bytes(): Buffer;
}

/** An answer's bytes in a buffer of their own: its chunks, joined at the end. */
export class OwnBody implements BodySink {
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

/**
 * One buffer that receives each page of a streamed list in turn (paginate()), its chunks copied in
 * as they arrive. A buffer of a page's own would be alive while the page prints, so it would
 * outlive a scavenge and go to the old generation with the request that holds it, to be freed
 * only by a full GC: dead pages piled up outside the heap to V8's 64 MB external-memory limit
 * before one ran (BENCHMARKS.md, "Streaming without a young-generation bound"). A page is good
 * until the next one begins.
 */
export class PageBuffer implements BodySink {
  private buffer = Buffer.alloc(0);
  private length = 0;
  private page = 0;

  /** An answer begins: the page held before is gone. */
  begin(): void {
    this.length = 0;
    this.page++;
  }

  append(chunk: Buffer): void {
    const needed = this.length + chunk.length;
    if (needed > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    chunk.copy(this.buffer, this.length);
    this.length = needed;
  }

  /** The bytes of the answer received since begin(). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  /** A check that throws once another answer has begun: reading a page that is gone is a bug, not a result. */
  checker(): () => void {
    const page = this.page;
    return () => {
      if (this.page !== page) throw new Error('a page of a streamed list was read after the next page had begun');
    };
  }
}
