// Whether a host name is this machine only: the sandbox and `webhook listen` relax what they
// require of callers (a secret, the sandbox helpers) when they listen on nothing else.
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
