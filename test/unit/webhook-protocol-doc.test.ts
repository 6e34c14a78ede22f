// docs/webhook-protocol.md's worked examples are right: the signatures it shows are what
// signature.ts computes for its secret, timestamp and body, and the Standard Webhooks one is what
// the standardwebhooks library computes and verifies.
import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { computeSignature, computeStandardSignature } from '../../src/webhook-protocol/signature.js';

const doc = readFileSync(new URL('../../docs/webhook-protocol.md', import.meta.url), 'utf8');
const section = (title: string) => doc.slice(doc.indexOf(title));
const body = /```json\n(.*)\n```/.exec(section('### Authorization ('))![1]!;

describe('docs/webhook-protocol.md worked examples', () => {
  it('the body is the authorization example, as many bytes as the page says', () => {
    expect(JSON.parse(body)['0']).toBe('0100');
    expect(doc).toContain(`exactly (${Buffer.byteLength(body)} bytes, no trailing newline)`);
  });

  it('cardctl scheme', () => {
    const [, secret, t] = /Worked example\. Secret `([^`]+)`, `t` = `(\d+)`/.exec(doc)!;
    const signature = computeSignature(secret!, Number(t), body);
    expect(doc).toContain(`X-Webhook-Signature: t=${t},v1=${signature}`);
  });

  it('standard-webhooks scheme, checked by the standardwebhooks library', () => {
    const [, secret, id, t] = /Worked example\. Secret `(whsec_[^`]+)`[\s\S]*?`webhook-id` `([^`]+)`,\s*`webhook-timestamp` `(\d+)`/.exec(doc)!;
    const signature = `v1,${computeStandardSignature(secret!, id!, Number(t), body)}`;
    expect(doc).toContain(`webhook-signature: ${signature}`);
    expect(new Webhook(secret!).sign(id!, new Date(Number(t) * 1000), body)).toBe(signature);
  });
});
