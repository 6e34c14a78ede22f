// When the switch's writes wait for the disk. A simulation is answered only after a durable
// commit (fsynced WAL on a file database); in forward mode the reservation before the webhook
// call does not wait, since the commit of the webhook's answer (durable) follows it and carries
// it to the disk. Recorded here through a store that logs each commit's durability and each sync.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SimulateBody } from '../../src/api/schemas.js';
import { openStore } from '../../src/sandbox/store/index.js';
import type { SwitchDeps } from '../../src/sandbox/switch/deps.js';
import { simulate as simulateIn } from '../../src/sandbox/switch/simulate.js';
import type { SwitchStore } from '../../src/sandbox/switch/store-port.js';
import { switchStore } from '../../src/sandbox/switch/store.js';
import type { WebhookOutcome } from '../../src/sandbox/switch/webhook.js';
import { tempDir } from '../helpers/cli.js';
import { startTestSandbox, type Sandbox } from './helpers.js';
import { auth, cardOf, createProgram } from './switch-helpers.js';

let sb: Sandbox;
let card: { id: string };
beforeAll(async () => {
  sb = await startTestSandbox();
  const program = await createProgram(sb, { webHookConfig: { url: 'http://127.0.0.1:9/webhook' } });
  card = await cardOf(sb, program.id);
});
afterAll(async () => {
  await sb.close();
});

/** The switch over the sandbox's store, logging `commit durable|not-durable` and `sync`, webhook replaced. */
function loggingDeps(answer: WebhookOutcome | ((message: Record<string, string>) => WebhookOutcome)) {
  const log: string[] = [];
  const real = switchStore(sb.deps.store);
  const store: SwitchStore = {
    ...real,
    atomically: (work, options) => {
      const result = real.atomically(work, options);
      log.push(options?.durable === false ? 'commit not-durable' : 'commit durable');
      return result;
    },
    sync: () => {
      log.push('sync');
      real.sync();
    },
  };
  const deps: SwitchDeps = {
    store,
    now: () => new Date(),
    callWebhook: async (_config, message) => (typeof answer === 'function' ? answer(message) : answer),
  };
  return { log, run: (body: Record<string, unknown>) => simulateIn(deps, sb.institutionId, body as SimulateBody) };
}

const approve = (message: Record<string, string>): WebhookOutcome => ({ ok: true, status: 200, reply: { ...message, '0': '0110', '39': '00' } });

describe('durability of the switch commits', () => {
  it('stub mode: one durable commit, then the answer', async () => {
    const { log, run } = loggingDeps(approve);
    expect((await run(auth(card.id))).data.responseCode).toBe('00');
    expect(log).toEqual(['commit durable']);
  });

  it('forward mode: the reservation does not wait for the disk; the answer commit does, before the answer', async () => {
    const { log, run } = loggingDeps(approve);
    expect((await run(auth(card.id, { responseMode: 'forward' }))).data.responseCode).toBe('00');
    expect(log).toEqual(['commit not-durable', 'commit durable']);
  });

  it('forward mode, declined by the service (never sent): the reservation is synced before the answer', async () => {
    const { log, run } = loggingDeps(approve);
    expect((await run(auth('000000000000000000000000', { responseMode: 'forward' }))).data.responseCode).toBe('14');
    expect(log).toEqual(['commit not-durable', 'sync']);
  });

  it('forward mode, the webhook failing: the stand-in decision reads, the answer commit is durable', async () => {
    const { log, run } = loggingDeps({ ok: false, reason: 'the webhook answered HTTP 500', status: 500 });
    expect((await run(auth(card.id, { responseMode: 'forward' }))).data.responseCode).toBe('96');
    expect(log).toEqual(['commit not-durable', 'commit durable', 'commit durable']);
  });
});

describe('a file store', () => {
  const dir = tempDir('cardctl-switch-durability-');
  afterAll(() => dir.remove());

  it('is back to synchronous=FULL after a commit that did not wait, whether it committed or threw; sync() fsyncs its WAL', () => {
    const store = openStore({ file: join(dir.path, 'sync.db') });
    try {
      const synchronous = () => (store.db.prepare('PRAGMA synchronous').get() as { synchronous: number }).synchronous;
      store.transaction(() => store.meta.set('a', 1), { durable: false });
      expect(synchronous()).toBe(2);
      expect(() => store.transaction(() => { store.meta.set('b', 2); throw new Error('no'); }, { durable: false })).toThrow('no');
      expect(synchronous()).toBe(2);
      expect(store.meta.get('a')).toBe(1);
      expect(store.meta.get('b')).toBeUndefined();
      expect(() => store.sync()).not.toThrow();
    } finally {
      store.close();
    }
    // In memory there is nothing to sync.
    const memory = openStore({ memory: true });
    try {
      expect(() => memory.sync()).not.toThrow();
    } finally {
      memory.close();
    }
  });
});
