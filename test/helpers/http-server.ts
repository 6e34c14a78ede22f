// A scripted HTTP server on 127.0.0.1 (port 0) for client and e2e tests: each request is
// answered by the next handler of a queue (or a fallback) and recorded.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** Client port of the connection (same port = the connection was reused). */
  remotePort?: number;
}

export type Handler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  /** Queues handlers for the next requests, in order. */
  enqueue(...handlers: Handler[]): void;
  /** Answers requests when the queue is empty. */
  fallback(handler: Handler): void;
  close(): Promise<void>;
}

export async function startTestServer(fallback?: Handler): Promise<TestServer> {
  const queue: Handler[] = [];
  const requests: RecordedRequest[] = [];
  let otherwise: Handler = fallback ?? ((_req, res) => json(res, 404, { statusCode: 404, message: 'no handler', error: 'NOT_FOUND' }));
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), remotePort: req.socket.remotePort };
    requests.push(recorded);
    const handler = queue.shift() ?? otherwise;
    try {
      await handler(recorded, res);
    } catch {
      res.destroy();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...handlers) => void queue.push(...handlers),
    fallback: (handler) => void (otherwise = handler),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** The API's success envelope. */
export function envelope(res: ServerResponse, data: unknown, extra: Record<string, unknown> = {}): void {
  json(res, 200, { statusCode: 200, message: 'ok', data, ...extra });
}

/** A forward proxy on 127.0.0.1: CONNECT tunnels (what undici uses) and absolute-URI requests, each line seen kept. */
export interface ForwardProxy {
  url: string;
  /** `CONNECT host:port`, or `METHOD absolute-URL`, in the order they came. */
  seen: string[];
  close(): Promise<void>;
}

/** Starts a ForwardProxy; a plain (absolute-URI) request is answered by `plain`, 405 without one. */
export async function startForwardProxy(plain?: (req: IncomingMessage, res: ServerResponse) => void): Promise<ForwardProxy> {
  const seen: string[] = [];
  const proxy = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    if (plain) plain(req, res);
    else res.writeHead(405).end();
  });
  proxy.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = String(req.url).split(':');
    const upstream = connect(Number(port), host!, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    },
  };
}
