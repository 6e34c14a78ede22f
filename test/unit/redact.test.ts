import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/app/cli.js';
import { REDACTED, isSecretKey, luhnValid, maskPan, maskPansInText, maskSecret, redactBodyText, redactHeaders, redactUrl, redactValue, secretReplacer } from '../../src/core/redact.js';
import { json, startTestServer, type TestServer } from '../helpers/http-server.js';
import { testIO } from '../helpers/context.js';
import { scratchDirs } from '../helpers/dirs.js';

const TOKEN = 'tok_live_9f8e7d6c5b4a39281706';
const API_KEY = 'key_live_0a1b2c3d4e5f60718293';
const PAN = '5399830000000008'; // Luhn-valid
const ENCRYPTED = 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90';
const SECRET = 'whsec_abcdefghijklmnopqrstuvwxyz';

describe('redaction helpers', () => {
  it('masks PANs to first 6 and last 4', () => {
    expect(maskPan(PAN)).toBe('539983******0008');
    expect(maskPansInText(`card ${PAN} declined`)).toBe('card 539983******0008 declined');
    expect(maskPansInText('order 1234567890123')).toBe('order 1234567890123'); // not Luhn-valid: left alone
  });

  // One rule everywhere text is masked: 13–19 digits (in groups of one space or dash) standing
  // alone and passing Luhn. Ids that hold such digits are not card numbers.
  it.each([
    ['a hex id holding a Luhn-valid digit run', 'transaction 6b09819212340040b5b0cbf8 not found', 'transaction 6b09819212340040b5b0cbf8 not found'],
    ['digits glued to letters', 'ref4111111111111111x', 'ref4111111111111111x'],
    ['a UUID whose leading groups are Luhn-valid digits', 'id 12345678-1234-1232-a456-426614174000', 'id 12345678-1234-1232-a456-426614174000'],
    ['an id joined by a dash or underscore', 'tx-4111111111111111 card_4111111111111111', 'tx-4111111111111111 card_4111111111111111'],
    ['16 digits failing Luhn', 'order 4111111111111112', 'order 4111111111111112'],
    ['20 digits', 'n 41111111111111111110', 'n 41111111111111111110'],
    ['a Luhn-valid card number in text', 'card 4111111111111111 declined', 'card 411111******1111 declined'],
    ['a card number in a URL path', 'GET /cards/4111111111111111/pin', 'GET /cards/411111******1111/pin'],
    ['a card number as a query value', '?pan=4111111111111111&x=1', '?pan=411111******1111&x=1'],
    ['a card number in groups', 'card 4111 1111 1111 1111, or 4111-1111-1111-1111.', 'card 411111******1111, or 411111******1111.'],
    ['a card number in quotes', '"4111111111111111"', '"411111******1111"'],
    ['a +phone number', 'call +2348012345678901', 'call +2348012345678901'],
  ])('maskPansInText: %s', (_name, text, masked) => {
    expect(maskPansInText(text)).toBe(masked);
  });

  it('masks secrets for display, never showing them whole', () => {
    expect(maskSecret(TOKEN)).toBe('tok_…1706');
    expect(maskSecret('short')).toBe('*****');
    expect(maskSecret(undefined)).toBe('');
  });

  it('redacts secret keys at any depth, PAN keys and PANs in free text', () => {
    const value = redactValue({
      data: { pan: PAN, encryptedData: ENCRYPTED, nested: [{ token: TOKEN, apiKey: API_KEY }], note: `pan ${PAN}` },
      oldPin: { encryptedData: ENCRYPTED, publicKeyFingerprint: 'ab' },
      '2': PAN,
      '35': `${PAN}=2912`,
    });
    const text = JSON.stringify(value);
    for (const secret of [TOKEN, API_KEY, PAN, ENCRYPTED]) expect(text).not.toContain(secret);
    expect(text).toContain(REDACTED);
    expect(text).toContain('539983******0008');
  });

  it('redacts the message fields that carry card secrets: track data, the PIN block, chip data', () => {
    const track1 = `B${PAN}^LOVELACE/ADA^2912101`;
    const overrides = { '35': `${PAN}=2912`, '36': `${PAN}=2912`, '45': track1, '52': 'A1B2C3D4E5F60718', '55': '9F2608C1A2B3C4D5E6F7', '43': 'ACME STORE' };
    expect(redactValue({ overrides })).toEqual({ overrides: { '35': REDACTED, '36': REDACTED, '45': REDACTED, '52': REDACTED, '55': REDACTED, '43': 'ACME STORE' } });
    for (const field of ['35', '36', '45', '52', '55']) expect(redactBodyText(`${field}=${overrides[field as keyof typeof overrides]}`)).toBe(`${field}=${REDACTED}`);
    expect(redactBodyText('43=ACME')).toBe('43=ACME');
  });

  it('redacts URLs: secret query parameters, user info and PANs', () => {
    const text = redactUrl(`https://user:pw@api.example.com/x?token=${TOKEN}&search=${PAN}&limit=5`);
    for (const secret of [TOKEN, PAN, 'pw']) expect(text).not.toContain(secret);
    expect(text).toContain('limit=5');
    expect(text).toContain(`token=${REDACTED}`);
  });

  it('redacts headers and form bodies', () => {
    expect(redactHeaders({ authorization: `Bearer ${TOKEN}`, 'x-api-key': API_KEY, accept: 'application/json' })).toEqual({
      authorization: `Bearer ${REDACTED}`,
      'x-api-key': REDACTED,
      accept: 'application/json',
    });
    expect(redactBodyText(`grant_type=client_credentials&client_assertion=eyJhbGciOi.xyz&token=${TOKEN}`)).not.toMatch(/eyJhbGciOi|tok_live/);
    expect(redactBodyText('{"statusCode":200,')).toBe('{"statusCode":200,');
  });
});

describe('maskPansInText masks what the pattern it replaced masked', () => {
  // The rule as a pattern (quadratic on `+ 1 1 1 …`): the reference the scanner is checked against.
  const DIGIT_GROUPS = /(?<![\w+]|\w-)(?<!\+[\d ()-]*)\d+(?:[ -]\d+)*(?!\w|-\w)/g;
  // Its masking of a run, as it was: every stretch of whole groups tried, longest first.
  const maskRun = (run: string) => {
    const groups = run.split(/[ -]/);
    const separators = run.match(/[ -]/g) ?? [];
    let out = '';
    for (let i = 0; i < groups.length;) {
      let j = groups.length - 1;
      for (; j >= i; j--) {
        const digits = groups.slice(i, j + 1).join('');
        if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits)) break;
      }
      out += j >= i ? maskPan(groups.slice(i, j + 1).join('')) + (separators[j] ?? '') : groups[i]! + (separators[i] ?? '');
      i = j >= i ? j + 1 : i + 1;
    }
    return out;
  };
  const reference = (text: string) => text.replace(DIGIT_GROUPS, maskRun);

  it('on random text of digits, separators, letters, + and brackets', () => {
    const piece = fc.oneof(fc.constantFrom(' ', '-', '+', '(', ')', 'a', '_', '/', '=', '--', '  '), fc.constantFrom(PAN, '5399 8300 0000 0008', '5399-8300-0000-0008', '4111111111111111', '4111 1111 1111 1111 1111', '42424242424242424242'), fc.stringMatching(/^\d{1,5}$/));
    fc.assert(fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
      const text = pieces.join('');
      expect(maskPansInText(text)).toBe(reference(text));
    }), { numRuns: 3000 });
  });
});

describe('which names hold secrets', () => {
  it.each([
    'secret', 'webhookSecret', 'webHookSecret', 'clientSecret', 'client_secret', 'password', 'token', 'accessToken', 'access_token',
    'refreshToken', 'refresh_token', 'apiKey', 'x-api-key', 'X-Api-Key', 'authorization', 'cookie', 'privateKey', 'private_key',
    'pin', 'pinBlock', 'oldPin', 'newPIN', 'defaultPIN', 'encryptedData', 'client_assertion', 'webHookConfig.secret', 'passphrase',
  ])('%s is secret', (name) => expect(isSecretKey(name)).toBe(true));

  it.each(['id', 'status', 'token_type', 'pinEnabled', 'pinAttempts', 'publicKeyFingerprint', 'url', 'name', 'baseUrl', 'tokenType'])('%s is not', (name) => {
    expect(isSecretKey(name)).toBe(false);
  });
});

describe('free text: the one redaction of bodies, flag values and messages', () => {
  it.each([
    ['URL user info, user and password', 'http://u:secretpw@127.0.0.1:4010/x', `http://${REDACTED}@127.0.0.1:4010/x`],
    ['URL user info with an @ in the password', 'cannot reach https://ops:p@ss@api.example.com/v1: refused', `cannot reach https://${REDACTED}@api.example.com/v1: refused`],
    ['a user alone', 'postgres://admin@db.local/x', `postgres://${REDACTED}@db.local/x`],
    ['a URL without user info', 'https://api.example.com/a@b', 'https://api.example.com/a@b'],
    ['a secret field nested in JSON', '{"webHookConfig":{"secret":"whsec_1","url":"http://h"}}', `{"webHookConfig":{"secret":"${REDACTED}","url":"http://h"}}`],
    ['secret fields in a JSON array', '[{"clientSecret":"s1","refreshToken":"r1","name":"a"}]', `[{"clientSecret":"${REDACTED}","refreshToken":"${REDACTED}","name":"a"}]`],
    ['a form body', 'grant_type=client_credentials&client_secret=abc&scope=x', `grant_type=client_credentials&client_secret=${REDACTED}&scope=x`],
    ['a query string', '/x?access_token=abc&limit=5', `/x?access_token=${REDACTED}&limit=5`],
    ['a secret header', 'X-Webhook-Secret: whsec_1', `X-Webhook-Secret: ${REDACTED}`],
    ['a header that is no secret', 'X-Request-Id: 42', 'X-Request-Id: 42'],
    ['a card number', `card ${PAN}`, 'card 539983******0008'],
    ['plain text', 'renew card c1', 'renew card c1'],
    ['not JSON after all', '{"statusCode":200,', '{"statusCode":200,'],
  ])('%s', (_what, text, shown) => expect(redactBodyText(text)).toBe(shown));

  it('every string of a value: URL user info too', () => {
    expect(redactValue({ baseUrl: 'http://u:pw@h:1', nested: ['see https://a:b@c.d/'] })).toEqual({ baseUrl: `http://${REDACTED}@h:1`, nested: [`see https://${REDACTED}@c.d/`] });
  });
});

describe('--debug output', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer((_req, res) => json(res, 200, {
      statusCode: 200,
      message: `ok for ${PAN}`,
      data: { id: 'c1', pan: PAN, token: TOKEN, secret: SECRET, pinBlock: { encryptedData: ENCRYPTED } },
    }, { 'set-cookie': `session=${TOKEN}` }));
  });
  afterEach(() => server.close());

  async function run(args: string[]) {
    const io = testIO();
    const code = await main(args, {
      io,
      env: { ...scratchDirs(), CARDCTL_BASE_URL: server.url, CARDCTL_TOKEN: TOKEN, CARDCTL_API_KEY: API_KEY },
    });
    return { code, stdout: io.stdoutText(), stderr: io.stderrText() };
  }

  const body = JSON.stringify({ pan: PAN, newPin: { encryptedData: ENCRYPTED, publicKeyFingerprint: 'ff' }, apiKey: API_KEY });

  it('logs headers and bodies of both directions with every secret redacted (bearer)', async () => {
    const { code, stderr } = await run(['api', 'POST', '/institutions/cards/c1/pin/reset', '--data', body, '--debug', '-o', 'json']);
    expect(code).toBe(0);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${TOKEN}`); // it was sent…
    expect(stderr).toMatch(/> authorization: Bearer \[REDACTED\]/i); // …but not logged
    expect(stderr).toContain('> POST');
    expect(stderr).toMatch(/< content-type: application\/json/);
    expect(stderr).toContain('< HTTP 200');
    expect(stderr).toContain('539983******0008');
    for (const secret of [TOKEN, API_KEY, PAN, ENCRYPTED, SECRET]) expect(stderr).not.toContain(secret);
  });

  it('with the API key', async () => {
    const { code, stderr } = await run(['api', 'POST', '/util/cards/import', '--api-key', '--data', body, '--debug']);
    expect(code).toBe(0);
    expect(server.requests[0]!.headers['x-api-key']).toBe(API_KEY);
    expect(stderr).toMatch(/x-api-key: \[REDACTED\]/);
    for (const secret of [TOKEN, API_KEY, PAN, ENCRYPTED, SECRET]) expect(stderr).not.toContain(secret);
  });

  it('errors with --debug (stack traces included) still leak nothing', async () => {
    server.fallback((_req, res) => json(res, 400, { statusCode: 400, message: `card ${PAN} is invalid`, error: 'VALIDATION_ERROR' }));
    const { code, stderr } = await run(['api', 'POST', '/institutions/cards', '--data', body, '--debug', '--json']);
    expect(code).toBe(5);
    expect(stderr).toContain('"exitCode":5');
    for (const secret of [TOKEN, API_KEY, PAN, ENCRYPTED]) expect(stderr).not.toContain(secret);
  });
});

describe('secretReplacer', () => {
  it('replaces each secret whole, the longest first, and ignores an empty one', () => {
    const replace = secretReplacer(['whsec_abc', 'whsec_abc_longer', '']);
    expect(replace('a whsec_abc_longer and whsec_abc.')).toBe('a [REDACTED] and [REDACTED].');
    expect(replace('nothing here')).toBe('nothing here');
  });
});
