// Narrowing a certification never turns a failing handler green: against a handler that answers
// HTTP 500 to everything, and one whose every reply echoes the card secrets, each check run
// alone (the narrowest --only) fails. The sweep enumerates CHECKS, so a check added tomorrow is
// held to it too. In process: a sandbox, a session, the runner, as `webhook certify` drives them.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/api/client.js';
import { CHECK_NAMES } from '../../src/certify/checks.js';
import { runChecks } from '../../src/certify/runner.js';
import { CertifySession } from '../../src/certify/session.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { answerMtisOf } from '../../src/webhook-protocol/reply.js';
import { verifyRequest } from '../../src/webhook-protocol/signature.js';
import { startTestServer, type RecordedRequest, type TestServer } from '../helpers/http-server.js';

const SECRET = 'narrowed-certify-secret';
const RETIRED = 'narrowed-certify-retired';

/** Answers HTTP 500 to everything. */
const http500 = (_req: RecordedRequest, res: ServerResponse) => { res.writeHead(500, { 'content-type': 'text/plain' }).end('broken'); };

/** A sound handler (signatures checked, everything approved and echoed) but for the card secrets it echoes too. */
function echoesSecrets(req: RecordedRequest, res: ServerResponse) {
  if (!verifyRequest('cardctl', req.headers, SECRET, req.body).ok) {
    res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad signature"}');
    return;
  }
  const message = JSON.parse(req.body) as Record<string, string>;
  const mti = message['0'] ?? '';
  const advice = /^0[12]2/.test(mti);
  // Every reply carries an expiry and a PIN block, whatever the request had.
  const reply = { ...message, 14: '2911', 52: '0123456789ABCDEF', '0': answerMtisOf(mti)[0]!, '39': advice ? message['39'] ?? '00' : '00', ...(advice ? {} : { '38': 'A12345' }) };
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
}

let sandbox: Awaited<ReturnType<typeof startSandbox>>;
const servers: TestServer[] = [];
beforeAll(async () => {
  sandbox = await startSandbox({ memory: true, port: 0, adviceRetryFirstMs: 200, webhookFaultsSeed: 1 });
});
afterAll(async () => {
  for (const server of servers) await server.close();
  await sandbox?.close();
});

async function sessionFor(handler: (req: RecordedRequest, res: ServerResponse) => void) {
  const server = await startTestServer(handler);
  servers.push(server);
  const client = new ApiClient({ baseUrl: sandbox.baseUrl, getToken: async () => sandbox.token });
  const session = await CertifySession.open(client, { url: server.url, secret: SECRET, retiredSecret: RETIRED, scheme: 'cardctl', seed: 1 }, new AbortController().signal);
  const run = (name: string) => runChecks([name], {
    session, deadlineMs: 5_000, windowMs: 1_000, latency: { perSecond: 10, durationMs: 300 }, signal: new AbortController().signal,
    expect: () => undefined, declinesByPolicy: () => false,
  });
  return run;
}

describe('every check run alone fails a failing handler', () => {
  for (const [name, handler] of [['HTTP 500 to everything', http500], ['card secrets echoed in every reply', echoesSecrets]] as const) {
    it(name, async () => {
      const run = await sessionFor(handler);
      const green: string[] = [];
      for (const check of CHECK_NAMES) {
        const [result] = await run(check);
        if (result?.verdict !== 'fail') green.push(`${check}: ${result?.verdict} (${result?.reason})`);
      }
      expect(green).toEqual([]);
    }, 120_000);
  }
});
