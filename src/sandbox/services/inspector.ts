// The live inspector's server side: the token that opens it, and its feed of server-sent events
// (transactions and webhook exchanges as they happen, from deps.events) to the open pages.
// The feed is bounded: at most `maxStreams` pages at once, and a page that reads too slowly to
// keep what is unsent under `maxBufferedBytes` is dropped (it reconnects and reloads its lists)
// rather than buffered without bound. Closing the feed ends every stream, so the server's close
// never waits on an open page.
import type { ServerResponse } from 'node:http';
import type { Transaction, WebhookExchange } from '../../api/schemas.js';
import { redactValue, withoutUrlCredentials } from '../../core/redact.js';
import type { SandboxEvents } from '../events.js';
import { digestsEqual, hashSecret, newSecret } from '../ids.js';

export interface InspectorLimits {
  /** Open event streams at most; one more is a 429. */
  maxStreams: number;
  /** A comment line this often keeps proxies and the browser from timing the stream out. */
  heartbeatMs: number;
  /** Unsent bytes a stream may hold before it is dropped. */
  maxBufferedBytes: number;
}

export const INSPECTOR_LIMITS: InspectorLimits = { maxStreams: 16, heartbeatMs: 15_000, maxBufferedBytes: 1024 * 1024 };

/** The token in the inspector's link; only its digest is kept, and compared in constant time. */
export interface InspectorAccess {
  /** The secret itself: printed once, in the link `sandbox serve` prints. */
  readonly token: string;
  admits(presented: unknown): boolean;
}

export function createInspectorAccess(token = newSecret('insp')): InspectorAccess {
  const digest = hashSecret(token);
  return {
    token,
    admits: (presented) => typeof presented === 'string' && presented !== '' && digestsEqual(hashSecret(presented), digest),
  };
}

/** Which events a page sees: those of the institution it inspects. */
export interface InspectorScope {
  transaction(transaction: Transaction): boolean;
  exchange(exchange: WebhookExchange): boolean;
}

export interface InspectorFeed {
  /** Whether another stream may open now (not closed, fewer than maxStreams open). */
  accepts(): boolean;
  /** Streams the events to `response` until the client goes, is dropped, or the feed closes. */
  open(response: ServerResponse): void;
  /** How many streams are open. */
  size(): number;
  /** Ends every stream and refuses new ones: the server is closing. */
  close(): void;
}

/** Headers of the event stream; `connection: close` so ending the stream also ends its socket. */
const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  connection: 'close',
  'x-content-type-options': 'nosniff',
};

export function createInspectorFeed(events: SandboxEvents, scope: InspectorScope, limits: InspectorLimits = INSPECTOR_LIMITS): InspectorFeed {
  const streams = new Set<ServerResponse>();
  let heartbeat: NodeJS.Timeout | undefined;
  let closed = false;

  const broadcast = (frame: string) => {
    for (const stream of streams) {
      if (stream.writableLength > limits.maxBufferedBytes) drop(stream);
      else stream.write(frame);
    }
  };
  const onTransaction = (transaction: Transaction) => {
    if (scope.transaction(transaction)) broadcast(eventFrame('transaction', transaction));
  };
  const onExchange = (exchange: WebhookExchange) => {
    if (scope.exchange(exchange)) broadcast(eventFrame('exchange', exchange));
  };

  // Listeners and the heartbeat exist only while a stream is open.
  const listen = () => {
    if (streams.size > 0 && heartbeat === undefined) {
      events.on('transaction', onTransaction);
      events.on('exchange', onExchange);
      heartbeat = setInterval(() => broadcast(': heartbeat\n\n'), limits.heartbeatMs);
      heartbeat.unref();
    } else if (streams.size === 0 && heartbeat !== undefined) {
      events.off('transaction', onTransaction);
      events.off('exchange', onExchange);
      clearInterval(heartbeat);
      heartbeat = undefined;
    }
  };
  const drop = (stream: ServerResponse) => {
    streams.delete(stream);
    stream.destroy();
    listen();
  };

  return {
    accepts: () => !closed && streams.size < limits.maxStreams,
    open(response) {
      response.writeHead(200, STREAM_HEADERS);
      // The browser's EventSource reconnects after 2 s; the comment sends the headers at once.
      response.write('retry: 2000\n: open\n\n');
      streams.add(response);
      response.on('close', () => {
        if (streams.delete(response)) listen();
      });
      listen();
    },
    size: () => streams.size,
    close() {
      closed = true;
      for (const stream of [...streams]) {
        streams.delete(stream);
        stream.end();
      }
      listen();
    },
  };
}

/** One server-sent event; JSON.stringify never writes a line break, so `data` is one line. */
export function eventFrame(event: 'transaction' | 'exchange', data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(inspectorView(data))}\n\n`;
}

/**
 * What the inspector may show of any value it sends (its reads and its event stream): the
 * disclosure rule of every output (core/redact.ts), as to a reader who may not read the webhook
 * settings, since the link's token is no scope.
 */
export function inspectorView(value: unknown): unknown {
  return redactValue(withoutUrlCredentials(value));
}

/** What the inspector shows and who it shows it as: the institution the sandbox seeded. */
export interface InspectorSubject {
  institutionId: string;
}

export interface InspectorOptions {
  access: InspectorAccess;
  subject: InspectorSubject;
  limits?: InspectorLimits;
}
