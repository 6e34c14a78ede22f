// The base URL a profile names: parsed, and refused where credentials would cross the network in clear.
import { UsageError } from '../core/errors.js';
import { isLoopbackHost } from '../core/loopback.js';

export function parseBaseUrl(value: string, insecure: boolean): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`invalid base URL "${value}"`, { hint: 'use a full URL such as https://api.example.com' });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new UsageError(`unsupported base URL scheme "${url.protocol}" (use https://)`);
  }
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname) && !insecure) {
    throw new UsageError(`refusing plain http:// to ${url.hostname}: tokens, API keys and PIN blocks would cross the network unencrypted`, {
      hint: 'use https://, or pass --insecure if you really mean it (e.g. a test host on a private network)',
    });
  }
  return url;
}
