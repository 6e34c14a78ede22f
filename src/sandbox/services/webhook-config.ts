// A card program's webhook settings changed (a sandbox extension beyond the reference's
// {type, header, url, secret}): the signature scheme by `type`, a Standard Webhooks secret
// checked (or made), and a secret rotation, during which the replaced secret signs too until
// `previousSecretUntil` (docs/webhook-protocol.md, "Secret rotation").
import type { CardProgramInput, WebhookConfig } from '../../api/schemas.js';
import { isStandardSecret, newStandardSecret, schemeOfWebhookType, STANDARD_SECRET_BYTES } from '../../webhook-protocol/signature.js';
import { invalidField } from '../errors.js';

type WebhookConfigChange = NonNullable<CardProgramInput['webHookConfig']>;

export function changeWebhookConfig(current: WebhookConfig, change: WebhookConfigChange, now: Date): WebhookConfig {
  const { previousSecretUntil: until, ...members } = change;
  const next: WebhookConfig = { ...current, ...members };
  if (change.secret !== undefined && change.secret !== current.secret) {
    // A new secret: the one it replaces signs too while the window is open, else not at all.
    delete next.previousSecret;
    delete next.previousSecretUntil;
    if (until !== undefined && Date.parse(until) > now.getTime()) Object.assign(next, { previousSecret: current.secret, previousSecretUntil: until });
  } else if (until !== undefined) {
    const future = Date.parse(until) > now.getTime();
    // Ending a rotation that is over (or never was) changes nothing; extending one needs one.
    if (current.previousSecret === undefined && future) {
      throw invalidField('webHookConfig.previousSecretUntil', 'moves no secret rotation: there is none (give a new secret with it to start one)');
    }
    if (future) next.previousSecretUntil = until;
    else {
      delete next.previousSecret;
      delete next.previousSecretUntil;
    }
  }
  if (schemeOfWebhookType(next.type) === 'standard-webhooks' && !isStandardSecret(next.secret)) {
    if (change.secret !== undefined) {
      throw invalidField('webHookConfig.secret', `must be, for standard-webhooks, whsec_ and the base64 of ${STANDARD_SECRET_BYTES.min} to ${STANDARD_SECRET_BYTES.max} bytes (leave it out and the sandbox makes one)`);
    }
    // Switched to standard-webhooks with a secret it cannot use: a new one, shown in the answer.
    next.secret = newStandardSecret();
    delete next.previousSecret;
    delete next.previousSecretUntil;
  }
  return next;
}
