// The disclosure rule on the sandbox's side. A handler that echoes the card number as a JSON
// number and in a reply header, during a key rotation of either signature scheme: the exchange
// log holds neither the number nor any of the signatures. A webhook URL with credentials in its
// user info and in query parameters of any name (`code`, `sig`, `key`): hidden from every reader
// without the card-program scope, on every route that answers it; shown to one with it. The
// inspector: every JSON route it registers, and its event stream, disclosed by the one rule even
// for a record stored unredacted.
import { get } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WebhookExchange, SandboxUserCredentials, Card } from '../../src/api/schemas.js';
import { REDACTED, maskPansInText } from '../../src/core/redact.js';
import { OPERATION_SCOPES, WEBHOOK_SETTINGS_SCOPE } from '../../src/sandbox/scopes.js';
import { call, startTestSandbox, type Sandbox, type DataEnvelope, type ListDataEnvelope, expanded } from './helpers.js';
import { auth, cardOf, clearPan, createProgram, simulate, startWebhook, updateProgram, type TestWebhook } from './switch-helpers.js';
import { present } from '../helpers/json.js';

const CREDENTIALS = ['CODEvalue123', 'SIGvalue456', 'KEYvalue789', 'hookpass'];
const STANDARD_SECRETS = [`whsec_${Buffer.alloc(32, 7).toString('base64')}`, `whsec_${Buffer.alloc(32, 9).toString('base64')}`];
const CARDCTL_SECRETS = ['old-cardctl-secret-1234', 'new-cardctl-secret-5678'];

let sb: Sandbox;
let hook: TestWebhook;
let urlWithCredentials: string;

beforeAll(async () => {
  sb = await startTestSandbox();
  hook = await startWebhook();
  const url = new URL(hook.url);
  url.username = 'hookuser';
  url.password = CREDENTIALS[3]!;
  url.search = `?code=${CREDENTIALS[0]}&sig=${CREDENTIALS[1]}&key=${CREDENTIALS[2]}`;
  urlWithCredentials = url.href;
}, 30_000);
afterAll(async () => {
  await hook?.close();
  await sb?.close();
});

/** The card number as the handler echoes it: a JSON number in field 2 and a reply header. */
function echoPanAsNumber(pan: string) {
  return (received: { message: Record<string, string> }, res: import('node:http').ServerResponse) => {
    const reply = { ...received.message, 0: '0110', 39: '00', 2: Number(pan) };
    res.writeHead(200, { 'content-type': 'application/json', 'x-echo-pan': pan }).end(JSON.stringify(reply));
  };
}

/** A program of the scheme with a key rotation under way (two signatures on every call), a card, one authorization. */
async function rotatedExchange(scheme: 'http' | 'standard-webhooks') {
  const [oldSecret, newSecret] = scheme === 'http' ? CARDCTL_SECRETS : STANDARD_SECRETS;
  const program = await createProgram(sb, { webHookConfig: { url: urlWithCredentials, type: scheme, secret: oldSecret! } });
  await updateProgram(sb, program.id, { webHookConfig: { secret: newSecret, previousSecretUntil: new Date(Date.now() + 3_600_000).toISOString() } });
  const card = await cardOf(sb, program.id);
  const pan = clearPan(sb, card.id);
  hook.respond(echoPanAsNumber(pan));
  const simulated = await simulate(sb, auth(card.id, { responseMode: 'forward' }));
  expect(simulated.status, simulated.text).toBe(200);
  const transactionId = simulated.body.data.transactionId as string;
  const listed = await call<ListDataEnvelope<WebhookExchange>>(sb, 'GET', `/sandbox/webhook-exchanges?transactionId=${transactionId}`, { token: sb.token });
  expect(listed.status, listed.text).toBe(200);
  return { pan, transactionId, secrets: [oldSecret!, newSecret!], text: listed.text, exchanges: listed.body.data as WebhookExchange[], sent: hook.received.at(-1)! };
}

describe('the exchange log', () => {
  for (const scheme of ['http', 'standard-webhooks'] as const) {
    it(`${scheme}: a handler's numeric card number and reply header masked; both signatures of a rotation redacted`, async () => {
      const { pan, text, exchanges, sent, secrets } = await rotatedExchange(scheme);
      const header = scheme === 'http' ? 'x-webhook-signature' : 'webhook-signature';
      // The handler really was sent two signatures, and really echoed the number.
      const signatures = String(sent.headers[header]).match(scheme === 'http' ? /v1=([^,]+)/g : /v1,(\S+)/g)!;
      expect(signatures).toHaveLength(2);
      expect(text).not.toContain(pan);
      expect(maskPansInText(text)).toBe(text);
      for (const signature of signatures) expect(text).not.toContain(signature.slice(3));
      for (const secret of secrets) expect(text).not.toContain(secret);
      const [exchange] = exchanges;
      if (scheme === 'http') expect(exchange!.request.headers[header]).toMatch(/^t=\d+,v1=\[REDACTED\],v1=\[REDACTED\]$/);
      else expect(exchange!.request.headers[header]).toBe(`v1,${REDACTED} v1,${REDACTED}`);
      expect(exchange!.response!.headers['x-echo-pan']).toBe(`${pan.slice(0, 6)}${'*'.repeat(pan.length - 10)}${pan.slice(-4)}`);
    });
  }
});

let userCounter = 0;
async function tokenWith(permissions: string[]): Promise<string> {
  const response = await call<DataEnvelope<SandboxUserCredentials>>(sb, 'POST', '/sandbox/users', { token: sb.token, body: { roles: [{ role: `disclosure-${++userCounter}`, permissions }] } });
  expect(response.status, response.text).toBe(201);
  return response.body.data.token as string;
}

describe('webhook URL credentials', () => {
  it('hidden from a read-only reader without the card-program scope, on every route that answers the URL; shown to one with it', async () => {
    const { transactionId, exchanges } = await rotatedExchange('http');
    const cardId = exchanges[0]!.cardId!;
    const readers = {
      readOnly: await tokenWith(['read:transaction', 'read:card']),
      settings: await tokenWith(['read:transaction', 'read:card', 'read:card_program']),
    };
    const paths = [
      `/sandbox/webhook-exchanges?transactionId=${transactionId}`,
      `/sandbox/webhook-exchanges/${exchanges[0]!.id}`,
      `/institutions/cards?cardId=${cardId}`,
      `/institutions/transactions/${transactionId}`,
    ];
    // And every GET route of the scope table a reader of everything but the programs may call.
    const everyReadBut = [...new Set(Object.values(OPERATION_SCOPES))].filter((scope) => scope.startsWith('read:') && scope !== WEBHOOK_SETTINGS_SCOPE);
    const widest = await tokenWith(everyReadBut);
    const routes = Object.entries(OPERATION_SCOPES).filter(([route, scope]) => route.startsWith('GET ') && everyReadBut.includes(scope))
      .map(([route]) => route.slice(4).replace(':cardId', cardId).replace(/webhook-exchanges\/:id/, `webhook-exchanges/${exchanges[0]!.id}`).replace(':id', transactionId));
    expect(routes.length).toBeGreaterThanOrEqual(6);
    for (const [path, token] of [...paths.map((one) => [one, readers.readOnly] as const), ...routes.map((one) => [one, widest] as const)]) {
      const answer = await call(sb, 'GET', path, { token });
      expect(answer.status, `${path}: ${answer.text}`).toBe(200);
      for (const credential of CREDENTIALS) expect(answer.text, path).not.toContain(credential);
    }
    const hidden = present((await call<ListDataEnvelope<WebhookExchange>>(sb, 'GET', paths[0]!, { token: readers.readOnly })).body.data[0], 'an exchange').request.url;
    expect(hidden).toMatch(/^http:\/\/\[REDACTED\]:\[REDACTED\]@127\.0\.0\.1:\d+\/webhook\?code=\[REDACTED\]&sig=\[REDACTED\]&key=\[REDACTED\]$/);
    const shown = await call(sb, 'GET', paths[0]!, { token: readers.settings });
    for (const credential of CREDENTIALS.slice(0, 3)) expect(shown.text).toContain(credential);
    const card = await call<ListDataEnvelope<Card>>(sb, 'GET', paths[2]!, { token: readers.settings });
    expect(present(expanded(present(card.body.data[0], 'the card').cardProgram).webHookConfig, 'the webhook settings').url).toBe(urlWithCredentials);
  });
});

/** The GET routes of fastify's printRoutes() tree (`├── /segment (GET, POST)`, four characters a level), as full paths. */
function getRoutes(tree: string): string[] {
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of tree.split('\n')) {
    const node = /^([│ ]*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?/.exec(line);
    if (!node) continue;
    const depth = node[1]!.length / 4;
    stack.length = depth;
    const path = `${stack[depth - 1] ?? ''}${node[2]}`;
    stack.push(path);
    if (node[3]?.split(', ').includes('GET')) out.push(path);
  }
  return out;
}

describe('the inspector', () => {
  /** A record stored as a careless writer would store it: nothing redacted. */
  function unredacted(pan: string, base: WebhookExchange): WebhookExchange {
    return {
      ...base,
      id: 'wx_unredacted',
      request: { ...base.request, url: urlWithCredentials, headers: { 'x-webhook-signature': 't=1,v1=abcdef0123,v1=fedcba9876' }, body: { 0: '0100', 2: Number(pan), secret: CARDCTL_SECRETS[0] } },
      response: { status: 200, headers: { 'x-echo-pan': pan }, body: JSON.stringify({ 2: Number(pan) }), truncated: false },
    };
  }

  it('every JSON route it registers, and its event stream, show no card number, signature, secret or URL credential', async () => {
    const { pan, exchanges, transactionId } = await rotatedExchange('http');
    const record = unredacted(pan, exchanges[0]!);
    sb.deps.exchanges.add(sb.institutionId, record, { 0: '0100', 2: pan });
    const token = new URL(sb.inspectorUrl).searchParams.get('token')!;
    // The inspector's routes, as the server registered them.
    const routes = getRoutes(sb.server.printRoutes({ commonPrefix: false }))
      .filter((path) => path.startsWith('/sandbox/inspector'))
      .map((path) => path.replace(':id', transactionId));
    expect(routes).toEqual(expect.arrayContaining(['/sandbox/inspector/transactions', '/sandbox/inspector/webhook-exchanges']));
    const leaks = (text: string) => [pan, 'abcdef0123', 'fedcba9876', CARDCTL_SECRETS[0]!, ...CREDENTIALS].filter((one) => text.includes(one));
    let checked = 0;
    for (const path of routes) {
      if (path.endsWith('/events')) continue;
      const answer = await call(sb, 'GET', path, { headers: { 'x-inspector-token': token }, skipOpenApiCheck: true });
      if (!String(answer.headers['content-type']).startsWith('application/json')) continue;
      expect(answer.status, `${path}: ${answer.text}`).toBe(200);
      expect(leaks(answer.text), path).toEqual([]);
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(3);
    const exchangesRead = await call(sb, 'GET', '/sandbox/inspector/webhook-exchanges', { headers: { 'x-inspector-token': token }, skipOpenApiCheck: true });
    expect(exchangesRead.text).toContain('wx_unredacted');

    // The event stream: the same record as it happens.
    const streamed = await new Promise<string>((resolve, reject) => {
      get(`${sb.baseUrl}/sandbox/inspector/events?token=${token}`, (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
          if (text.includes('wx_unredacted')) { response.destroy(); resolve(text); }
        });
        setTimeout(() => sb.deps.events.emit('exchange', { ...record, cardId: null }), 50);
      }).on('error', reject);
    });
    expect(leaks(streamed)).toEqual([]);
  });
});
