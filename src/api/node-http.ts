// The client's transport over Node's built-in http/https: one request, its whole answer's bytes.
// The client takes it whenever nothing needs undici (no proxy in the environment, no dispatcher
// handed in): node:http is part of Node itself, where loading undici's Agent costs 30-35 ms of
// every command. Custom CAs need nothing here: node:https trusts
// what NODE_EXTRA_CA_CERTS adds, as undici does.
import type { IncomingHttpHeaders } from 'node:http';
import { OwnBody } from './body.js';

export interface TransportRequest {
  url: URL;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** No bytes for this long (connecting, waiting for the answer, reading it): a TimeoutError. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface TransportResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The body's bytes as received (src/api/body.ts reads them as text). */
  body: Buffer;
}

export interface Transport {
  send(request: TransportRequest): Promise<TransportResponse>;
  close(): Promise<void>;
}

/** A keep-alive pool for the origin of `url` (http or https) and the requests sent through it. */
export function nodeTransport(url: URL, connections: number): Transport {
  // Not import(): an ES module import of node:http evaluates every export, among them the
  // WebSocket that Node 24 builds from its own copy of undici, ~30 ms; getBuiltinModule does not.
  const http = url.protocol === 'https:' ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
  // An idle connection is closed after 10 s, as undici's pool does: a process that runs many
  // commands (demo, tests) would otherwise keep every command's connections open.
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections, timeout: 10_000 });
  return {
    send: (request) => new Promise<TransportResponse>((resolve, reject) => {
      const { signal } = request;
      let settled = false;
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        req.destroy();
        reject(error);
      };
      const onAbort = () => fail(Object.assign(new Error('request aborted'), { name: 'AbortError' }));
      const headers = request.body === undefined ? request.headers : { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) };
      const req = http.request(request.url, { method: request.method, headers, agent }, (res) => {
        const received = new OwnBody();
        received.begin();
        res.on('data', (chunk: Buffer) => received.append(chunk));
        res.on('error', fail);
        // A body cut off before its end (the connection closed mid-transfer) is a reset, not an answer.
        res.on('close', () => {
          if (!res.complete) fail(Object.assign(new Error('the connection closed before the whole answer arrived'), { code: 'ECONNRESET' }));
        });
        res.on('end', () => {
          if (settled || !res.complete) return;
          settled = true;
          signal?.removeEventListener('abort', onAbort);
          resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: received.bytes() });
        });
      });
      req.on('error', fail);
      req.setTimeout(request.timeoutMs, () => fail(Object.assign(new Error(`no bytes for ${request.timeoutMs} ms`), { name: 'TimeoutError' })));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      req.end(request.body);
    }),
    close: async () => agent.destroy(),
  };
}
