// The egress rule (src/core/loopback.ts): what "this machine" means, as a table of hosts and URLs
// (tricks included), and the connection made to the address checked, never to a second DNS answer.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectToLoopback } from '../../src/api/undici.js';
import { isLoopbackHost, isLoopbackIp, isLoopbackPeer, loopbackTarget, NotLoopbackError } from '../../src/core/loopback.js';

describe('isLoopbackHost (a bind address, or a URL hostname)', () => {
  it.each([
    ['127.0.0.1', true], ['127.5.6.7', true], ['127.255.255.255', true], ['::1', true], ['[::1]', true], ['0:0:0:0:0:0:0:1', true],
    ['localhost', true], ['LOCALHOST', true],
    ['127.0.0.1.attacker.example', false], ['localhost.attacker.example', false], ['localhost.', false], ['127.attacker.example', false],
    ['127.1', false], ['0x7f.1', false], ['2130706433', false], // not literals as given (a URL normalises them: below)
    ['::ffff:127.0.0.1', false], ['[::ffff:127.0.0.1]', false], ['0.0.0.0', false], ['::', false], ['128.0.0.1', false], ['10.0.0.1', false],
    ['', false], ['evil.example', false],
  ])('%s → %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });

  it('isLoopbackPeer: a socket peer, where a dual-stack socket writes an IPv4 loopback peer ::ffff:127.x.y.z', () => {
    for (const peer of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '::FFFF:127.9.9.9']) expect(isLoopbackPeer(peer), peer).toBe(true);
    for (const peer of [undefined, '', '192.0.2.7', '::ffff:192.0.2.7', '::ffff:7f00:1', 'localhost']) expect(isLoopbackPeer(peer), String(peer)).toBe(false);
  });

  it('isLoopbackIp takes literals only', () => {
    expect(isLoopbackIp('localhost')).toBe(false);
    expect(isLoopbackIp('127.0.0.1')).toBe(true);
  });
});

describe('loopbackTarget (a URL to send to)', () => {
  const noDns = async () => { throw new Error('DNS must not be asked'); };

  it.each([
    ['http://127.0.0.1:4021/hook', '127.0.0.1'],
    ['http://127.1:4021/', '127.0.0.1'], // the URL parser writes 127.1 as 127.0.0.1, and that is where it connects
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://2130706433/', '127.0.0.1'],
    ['https://[::1]:8443/', '::1'],
    ['http://[0:0:0:0:0:0:0:1]/', '::1'],
  ])('%s is on this machine (%s), without asking DNS', async (url, address) => {
    expect((await loopbackTarget(url, noDns)).addresses).toEqual([{ address, family: address.includes(':') ? 6 : 4 }]);
  });

  it.each([
    ['http://127.0.0.1.attacker.example:4021/', /127\.0\.0\.1\.attacker\.example is not this machine/],
    ['http://localhost.attacker.example/', /not this machine/],
    ['http://[::ffff:127.0.0.1]/', /not this machine/],
    ['http://0.0.0.0:4021/', /not this machine/],
    ['http://127.0.0.1@evil.example/', /user name or password/],
    ['http://user:pass@127.0.0.1/', /user name or password/],
    ['http://evil.example#@127.0.0.1/', /evil\.example is not this machine/],
    ['http://evil.example\\@127.0.0.1/', /not this machine/],
    ['ftp://127.0.0.1/', /not an http or https URL/],
    ['file:///etc/passwd', /not an http or https URL/],
    ['not a url', /not a URL/],
  ])('%s is refused', async (url, reason) => {
    const refusal = await loopbackTarget(url, noDns).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(NotLoopbackError);
    expect((refusal as NotLoopbackError).reason).toMatch(reason);
  });

  it('localhost: resolved once; every address must be loopback', async () => {
    expect((await loopbackTarget('http://localhost:1/', async () => [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }])).addresses)
      .toEqual([{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]);
    const mixed = await loopbackTarget('http://localhost:1/', async () => [{ address: '127.0.0.1', family: 4 }, { address: '203.0.113.9', family: 4 }]).catch((e: unknown) => e);
    expect((mixed as NotLoopbackError).reason).toMatch(/resolves to 203\.0\.113\.9/);
    const none = await loopbackTarget('http://localhost:1/', async () => []).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(NotLoopbackError);
  });
});

describe('connectToLoopback: the connection goes to the address checked', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    // On 127.0.0.2, where the system's own localhost does not lead: reaching it proves the checked address was used.
    server = createServer((_req, res) => res.end('here'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('asks DNS once; a second answer (a rebinding) is never used', async () => {
    const answers = [[{ address: '127.0.0.2', family: 4 }], [{ address: '203.0.113.9', family: 4 }]];
    let asked = 0;
    const { dispatcher } = await connectToLoopback(`http://localhost:${port}/`, async () => answers[asked++]!);
    try {
      for (let i = 0; i < 3; i++) {
        // A fresh connection each time: the lookup runs again, and answers the checked address.
        const response = await request(`http://localhost:${port}/`, { dispatcher, reset: true });
        expect(await response.body.text()).toBe('here');
      }
      expect(asked).toBe(1);
    } finally {
      await dispatcher.close();
    }
    // Without the pinned dispatcher, localhost is not where the server is.
    await expect(request(`http://localhost:${port}/`)).rejects.toThrow();
  });

  it('refuses before connecting when the name is not this machine', async () => {
    await expect(connectToLoopback(`http://127.0.0.1.attacker.example:${port}/`, async () => [{ address: '127.0.0.1', family: 4 }])).rejects.toBeInstanceOf(NotLoopbackError);
  });
});
