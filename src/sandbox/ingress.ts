// The one ingress rule: who may talk to the sandbox. One onRequest hook at the root of the
// server, so every route (the inspector, its stream and every route added later) and the 404
// answer get it before their own hooks run:
//   1. `Host` names this sandbox: localhost, 127.0.0.1, [::1] or the address it is bound to
//      (bound to a wildcard and published: any address of this machine), with the port the
//      request came in on (any port once published). A page whose name rebinds to 127.0.0.1
//      sends its own name: refused.
//   2. An `Origin`, when sent, is this sandbox (the same names and port, http). A page elsewhere
//      is refused, whatever it asks.
//   3. /sandbox/* answers callers on loopback only, unless the sandbox was published on purpose
//      (`sandbox serve --host`); the inspector (/sandbox/inspector*) loopback only, always.
//   4. A POST, PUT, PATCH or DELETE to /sandbox/* carries a JSON body or a credential header
//      (Authorization, x-api-key, x-inspector-token): a browser cannot send either to another
//      origin without a preflight, which the sandbox never answers.
import { networkInterfaces } from 'node:os';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isLoopbackIp, isLoopbackPeer } from '../core/loopback.js';
import type { SandboxSettings } from './deps.js';
import { ApiError, notPermitted } from './errors.js';

/** The names a Host header may give for this sandbox, whatever it is bound to. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARDS = new Set(['0.0.0.0', '::', '[::]']);
const CREDENTIAL_HEADERS = ['authorization', 'x-api-key', 'x-inspector-token'];
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

type IngressSettings = Pick<SandboxSettings, 'allowRemoteSandboxHelpers' | 'bindHost'>;

/** Adds the ingress rule to every route of `app`; call before the routes are registered. */
export function installIngress(app: FastifyInstance, settings: IngressSettings): void {
  const serverPort = listeningPort(app);
  // A callback hook, not an async one: it runs on every request.
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      checkIngress(request, settings, serverPort);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
}

function listeningPort(app: FastifyInstance): () => number | undefined {
  return () => {
    const address = app.server.address();
    return typeof address === 'object' && address ? address.port : undefined;
  };
}

function checkIngress(request: FastifyRequest, settings: IngressSettings, serverPort: () => number | undefined): void {
  // The port the connection reached (a server listens on one; an injected request has none).
  const port = request.raw.socket?.localPort ?? serverPort();
  const host = request.headers.host;
  if (!host || !namesThisSandbox(host, port, settings)) {
    throw notPermitted(`the Host header ${host ? `"${host.slice(0, 100)}"` : '(none)'} does not name this sandbox: use ${suggestedHost(settings, port)}`);
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !isOwnOrigin(origin, port, settings)) {
    throw notPermitted(`requests from the web page at ${JSON.stringify(origin.slice(0, 100))} are refused: the sandbox answers its own origin only`);
  }
  const path = request.routeOptions.url ?? pathOf(request.url);
  if (!path.startsWith('/sandbox/')) return;
  if (!isLoopbackPeer(request.socket.remoteAddress)) {
    if (path === '/sandbox/inspector' || path.startsWith('/sandbox/inspector/')) throw notPermitted('the inspector answers only callers on this machine (loopback)');
    if (!settings.allowRemoteSandboxHelpers) throw notPermitted('sandbox helpers answer only loopback callers; start the sandbox with --host to publish them');
  }
  if (!SAFE_METHODS.has(request.method) && !CREDENTIAL_HEADERS.some((name) => request.headers[name] !== undefined) && !isJson(request.headers['content-type'])) {
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `${request.method} ${path} takes a JSON body (Content-Type: application/json; {} when there is nothing to say) or a token`);
  }
}

/** `name[:port]`: a DNS name or IPv4 literal, or an IPv6 literal in brackets; nothing else (no user info, no path). */
const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i;

/**
 * Whether a Host header is one of this sandbox's names, at the port the request came in on (80
 * when it names none). A published sandbox may sit behind a port mapping (a container): its port is not checked.
 */
export function namesThisSandbox(hostHeader: string, port: number | undefined, settings: IngressSettings): boolean {
  const match = HOST_HEADER.exec(hostHeader);
  if (!match) return false;
  const givenPort = match[2] === undefined ? 80 : Number(match[2]);
  if (port !== undefined && givenPort !== port && !settings.allowRemoteSandboxHelpers) return false;
  return isAcceptedName(match[1]!.toLowerCase(), settings);
}

function isOwnOrigin(origin: string, port: number | undefined, settings: IngressSettings): boolean {
  if (!URL.canParse(origin)) return false; // "null" included: a sandboxed frame or a file
  const url = new URL(origin);
  return url.protocol === 'http:' && url.pathname === '/' && namesThisSandbox(url.host, port, settings);
}

/** localhost, 127.0.0.1, [::1], the bound address; bound to a wildcard and published, every address of this machine. */
function isAcceptedName(name: string, settings: IngressSettings): boolean {
  if (LOOPBACK_NAMES.includes(name)) return true;
  if (!WILDCARDS.has(settings.bindHost)) return name === urlHostOf(settings.bindHost);
  return settings.allowRemoteSandboxHelpers && Object.values(networkInterfaces()).some((entries) => (entries ?? []).some((entry) => urlHostOf(entry.address) === name));
}

/** A host as a URL writes it: lower case, IPv6 in brackets. */
function urlHostOf(host: string): string {
  const lower = host.toLowerCase();
  return lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower;
}

function suggestedHost(settings: IngressSettings, port: number | undefined): string {
  const name = WILDCARDS.has(settings.bindHost) || isLoopbackIp(settings.bindHost) ? '127.0.0.1' : urlHostOf(settings.bindHost);
  return port === undefined ? name : `${name}:${port}`;
}

function isJson(contentType: string | undefined): boolean {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json';
}

function pathOf(url: string): string {
  const question = url.indexOf('?');
  return question === -1 ? url : url.slice(0, question);
}
