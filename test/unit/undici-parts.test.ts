// src/api/undici.ts loads undici's Agent and `request` from undici's own files instead of its
// index (BENCHMARKS.md: 15-25 ms a command). Those paths are not undici's public API: when an
// undici upgrade moves or changes them, this fails and says so, rather than every command.
import { createRequire } from 'node:module';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { loadAgentClass, loadRequest } from '../../src/api/undici.js';

const require = createRequire(import.meta.url);

describe("undici's files that cardctl loads on their own", () => {
  it('are still there and are what the index exports', () => {
    expect(require('undici/lib/dispatcher/agent.js'), 'undici/lib/dispatcher/agent.js moved: update src/api/undici.ts').toBe(undici.Agent);
    expect(require('undici/lib/api/api-request.js'), 'undici/lib/api/api-request.js moved: update src/api/undici.ts').toBe(undici.Dispatcher.prototype.request);
  });

  it('load as the client uses them: an Agent class, EnvHttpProxyAgent behind a proxy, and request', async () => {
    expect(await loadAgentClass(false)).toBe(undici.Agent);
    expect(await loadAgentClass(true)).toBe(undici.EnvHttpProxyAgent);
    expect(await loadRequest()).toBe(undici.Dispatcher.prototype.request);
  });
});
