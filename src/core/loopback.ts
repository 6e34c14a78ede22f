// The one egress rule: what "this machine" means for an address cardctl or the sandbox sends to,
// binds to, or relaxes a requirement for. Loopback is an IP literal in 127.0.0.0/8 or ::1, or the
// name `localhost`, never a string prefix: `127.0.0.1.attacker.example` is a name like any other.
// A URL's host is taken as WHATWG URL normalises it (`http://127.1/` is http://127.0.0.1/, the
// host of `http://127.0.0.1@evil.example/` is evil.example). Before a connection, `localhost` is
// resolved once, every address checked, and the connection made to those addresses only
// (pinnedLookup), so a second DNS answer cannot send it elsewhere.
import { isIPv4, isIPv6, type LookupFunction } from 'node:net';

/** An IP literal of the loopback network: 127.0.0.0/8 or ::1 (brackets allowed). IPv4-mapped forms are not. */
export function isLoopbackIp(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIPv4(bare)) return bare.split('.')[0] === '127';
  // Every spelling of ::1 (0:0:0:0:0:0:0:1, ::0:1) is written [::1] once the URL parser has it.
  return isIPv6(bare) && URL.canParse(`http://[${bare}]/`) && new URL(`http://[${bare}]/`).hostname === '[::1]';
}

/** A host (a URL's hostname, or an address to bind) on this machine only: a loopback literal, or `localhost`. */
export function isLoopbackHost(host: string): boolean {
  return host.toLowerCase() === 'localhost' || isLoopbackIp(host);
}

/**
 * A peer address (a socket's remoteAddress) on this machine. A dual-stack socket shows an IPv4
 * peer as ::ffff:127.x.y.z: that is the kernel's notation for a connection that came over IPv4
 * loopback, not a destination someone wrote, so it counts here and nowhere else.
 */
export function isLoopbackPeer(address: string | undefined): boolean {
  if (!address) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return isLoopbackIp(mapped ? mapped[1]! : address);
}

/** Why `url` is not a URL on this machine, or undefined when it is (http or https, no user info, a loopback host). */
export function notLoopbackReason(url: URL): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'it is not an http or https URL';
  if (url.username !== '' || url.password !== '') return 'it carries a user name or password';
  if (!isLoopbackHost(url.hostname)) return `${url.hostname} is not this machine (localhost, 127.0.0.0/8, [::1])`;
  return undefined;
}

/** A URL on this machine, and the addresses a connection to it may use (all of them checked). */
export interface LoopbackTarget {
  url: URL;
  addresses: Array<{ address: string; family: 4 | 6 }>;
}

export class NotLoopbackError extends Error {
  constructor(readonly url: string, readonly reason: string) {
    super(`${url} is not on this machine: ${reason}`);
    this.name = 'NotLoopbackError';
  }
}

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const resolveAll: Resolver = async (hostname) => {
  const { lookup } = await import('node:dns/promises');
  return lookup(hostname, { all: true, verbatim: true });
};

/**
 * `url` checked as on this machine: its host a loopback literal, or `localhost` resolved once with
 * every address a loopback literal. Throws NotLoopbackError otherwise.
 */
export async function loopbackTarget(text: string | URL, resolve: Resolver = resolveAll): Promise<LoopbackTarget> {
  let url: URL;
  try {
    url = new URL(String(text));
  } catch {
    throw new NotLoopbackError(String(text).slice(0, 80), 'it is not a URL');
  }
  const reason = notLoopbackReason(url);
  if (reason) throw new NotLoopbackError(url.href, reason);
  const bare = url.hostname.replace(/^\[|\]$/g, '');
  if (isLoopbackIp(bare)) return { url, addresses: [{ address: bare, family: isIPv6(bare) ? 6 : 4 }] };
  let resolved: Array<{ address: string; family: number }>;
  try {
    resolved = await resolve(bare);
  } catch (error) {
    throw new NotLoopbackError(url.href, `${bare} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  const outside = resolved.find((entry) => !isLoopbackIp(entry.address));
  if (resolved.length === 0 || outside) throw new NotLoopbackError(url.href, `${bare} resolves to ${outside?.address ?? 'nothing'}, not a loopback address`);
  return { url, addresses: resolved.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 })) };
}

/**
 * A `lookup` for net.connect/tls.connect (undici's `connect` options pass it on) that answers
 * with the target's checked addresses and never asks DNS again.
 */
export function pinnedLookup(target: LoopbackTarget): LookupFunction {
  // Typed as LookupFunction itself: the callback takes one address or, with `all`, the list.
  const lookup: LookupFunction = (_hostname, options, callback) => {
    const family = options?.family === 6 || options?.family === 'IPv6' ? 6 : options?.family === 4 || options?.family === 'IPv4' ? 4 : 0;
    const fitting = target.addresses.filter((entry) => family === 0 || entry.family === family);
    const chosen = fitting.length > 0 ? fitting : target.addresses;
    if (options?.all) callback(null, chosen);
    else callback(null, chosen[0]!.address, chosen[0]!.family);
  };
  return lookup;
}

