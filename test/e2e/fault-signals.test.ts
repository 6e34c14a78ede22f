// Every command that installs webhook faults puts them back when it is interrupted: SIGINT,
// SIGTERM and SIGHUP, sent to the built CLI while its faults are in force, leave the sandbox's
// faults as they were, and the command exits 130. The commands are found from the code: those
// whose modules reach src/api/webhook-faults.ts, the one module that installs faults; each must
// have a way to get it to that moment below, so a command added tomorrow fails here until it has.
// Then: two `webhook certify -p` runs on one sandbox pass together, and another institution's
// traffic meanwhile gets none of their faults.
import { parseDependencyTree, type DependencyTree } from 'dpdm';
import { execa, type ResultPromise } from 'execa';
import { writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPT_SIGNALS } from '../../src/app/run-cli.js';
import { BIN, cardctl, cleanEnv, isolatedDirs, startSandboxProcess, startWebhookListener, tempDir, type RunningSandbox, type WebhookListener } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/http-server.js';
import { call, createCardOverHttp, type DataEnvelope, type WebhookFaultState } from '../sandbox/helpers.js';
import type { Transaction, CardProgram, SimulateEnvelope, SandboxInstitutionCredentials } from '../../src/api/schemas.js';
import { present } from '../helpers/json.js';

const INSTALLER = 'src/api/webhook-faults.ts';
const SECRET = 'whsec_ZmF1bHQtc2lnbmFscy1lMmUtc2VjcmV0LTMyYnl0ZXM=';
/** What GET /sandbox/webhook-faults shows of a spec with no faults in it. */
const NO_FAULTS = 'deadline=5000ms';

let config: { path: string; remove(): void };
let listener: WebhookListener;
let sandbox: RunningSandbox;
/** A handler that answers after 3 s: a command's faults stay in force that long. */
let slow: TestServer;

beforeAll(async () => {
  config = tempDir();
  listener = await startWebhookListener({ configDir: config.path, secret: SECRET });
  sandbox = await startSandboxProcess(['--profile', 'sb', '--quiet-log', '--webhook-url', listener.url], { configDir: config.path });
  slow = await startTestServer(async (_req, res) => {
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    res.writeHead(401).end();
  });
}, 60_000);
afterAll(async () => {
  await sandbox?.stop();
  await listener?.stop();
  await slow?.close();
  config?.remove();
});

interface FaultState { spec: string; seed: number; programs: Array<{ programId: string; spec: string }> }
const faultState = async (): Promise<FaultState> => {
  const state = (await call<WebhookFaultState>(sandbox.info, 'GET', '/sandbox/webhook-faults', { token: sandbox.info.token })).body;
  return { ...state, programs: present(state.programs, "the institution's programs with faults") };
};
const anyFault = (state: FaultState) => [state.spec, ...state.programs.map((p) => p.spec)].some((spec) => spec !== NO_FAULTS);

/** How to start each fault-installing command so that it holds faults for a few seconds. */
const RECIPES: Record<string, () => Promise<{ args: string[]; input?: string }>> = {
  'webhook certify': async () => ({ args: ['-p', 'sb', 'webhook', 'certify', '--url', slow.url, '--secret-stdin', '--only', 'refuse-wrong-secret'], input: `${SECRET}\n` }),
  'simulate run': async () => {
    const card = await createCardOverHttp(sandbox.info);
    const file = join(config.path, `slow-${Date.now()}.yaml`);
    writeFileSync(file, `steps:\n  - { intent: authorization, card: "${card}", amount: 1, forward: true, webhookFaults: "delay=20000ms,deadline=30s" }\n`);
    return { args: ['-p', 'sb', 'simulate', 'run', file] };
  },
};

/**
 * The commands (`group verb`) whose module reaches the installer, following every import
 * (dynamic ones too) but none into src/app/, the composition root that imports every command.
 */
async function faultInstallingCommands(): Promise<string[]> {
  const tree: DependencyTree = await parseDependencyTree('src/commands/routes.ts', { context: process.cwd(), tsconfig: 'tsconfig.json', transform: true, skipDynamicImports: false });
  const reaches = (file: string, seen = new Set<string>()): boolean => {
    if (file === INSTALLER) return true;
    if (seen.has(file) || file.startsWith('src/app/')) return false;
    seen.add(file);
    return (tree[file] ?? []).some((dependency) => dependency.id !== null && reaches(dependency.id, seen));
  };
  const commandsOf = (file: string, path: string[]): Array<{ path: string[]; file: string }> => {
    if (basename(file) !== 'index.ts') return [{ path, file }];
    // A group: its verbs are the command modules its definition imports.
    return (tree[file] ?? []).filter((d) => d.id?.startsWith(`${dirname(file)}/`) && d.id !== file)
      .flatMap((d) => commandsOf(d.id!, [...path, basename(d.id!) === 'index.ts' ? basename(dirname(d.id!)) : basename(d.id!, '.ts')]));
  };
  const topLevel = (tree['src/commands/routes.ts'] ?? []).filter((d) => d.id?.startsWith('src/commands/'));
  expect(topLevel.length).toBeGreaterThan(10);
  return topLevel
    .flatMap((d) => commandsOf(d.id!, [basename(d.id!) === 'index.ts' ? basename(dirname(d.id!)) : basename(d.id!, '.ts')]))
    .filter(({ file }) => reaches(file))
    .map(({ path }) => path.join(' '));
}

describe('interrupted while its faults are in force, a command puts them back and exits 130', () => {
  it('the commands that install faults are found from the code, and each has a recipe here', async () => {
    const found = await faultInstallingCommands();
    expect(found).toContain('webhook certify');
    expect(found.sort()).toEqual(Object.keys(RECIPES).sort());
  }, 120_000);

  for (const command of Object.keys(RECIPES)) {
    for (const signal of INTERRUPT_SIGNALS) {
      it(`${command}, ${signal}`, async () => {
        const before = await faultState();
        expect(anyFault(before), JSON.stringify(before)).toBe(false);
        const { args, input } = await RECIPES[command]!();
        const run: ResultPromise = execa('node', [BIN, ...args], {
          env: cleanEnv(isolatedDirs(config.path)), extendEnv: false, reject: false, timeout: 60_000, input: input ?? '',
        });
        for (let tries = 0; ; tries++) {
          if (anyFault(await faultState())) break;
          if (run.exitCode !== null || tries > 400) throw new Error(`${command} never installed its faults: ${(await run).stderr}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        run.kill(signal);
        const result = await run;
        expect(result.exitCode, String(result.stderr)).toBe(130);
        expect(await faultState()).toEqual(before);
      }, 90_000);
    }
  }
});

describe('two certify runs on one sandbox', () => {
  it('both pass with a correct handler, and another institution\'s messages meanwhile get none of their faults', async () => {
    const other = (await call<DataEnvelope<SandboxInstitutionCredentials>>(sandbox.info, 'POST', '/sandbox/institutions', { body: { name: 'Bystander Bank' } })).body.data;
    const bystander = { ...sandbox.info, token: other.token as string, cardProgramId: other.cardProgramId as string };
    expect((await call<DataEnvelope<CardProgram>>(bystander, 'PUT', `/sandbox/card-programs/${bystander.cardProgramId}`, { token: bystander.token, body: { webHookConfig: { url: listener.url } } })).status).toBe(200);
    const card = await createCardOverHttp(bystander);

    const checks = 'authorization-reply,refuse-wrong-secret,refuse-missing-signature,refuse-tampered-body,duplicate-delivery,refuse-stale-past,refuse-stale-future,timeout-reversal';
    const certify = () => cardctl(['-p', 'sb', 'webhook', 'certify', '--url', listener.url, '--secret-stdin', '--only', checks], { configDir: config.path, input: `${SECRET}\n`, timeout: 120_000 });
    const runs = Promise.all([certify(), certify()]);
    let finished = false;
    void runs.finally(() => { finished = true; });
    const seen: string[][] = [];
    while (!finished) {
      const sent = await call<SimulateEnvelope>(bystander, 'POST', '/institutions/switch/simulate', { token: bystander.token, body: { intent: 'authorization', processingFlow: 'purchase', amount: 1, cardId: card, responseMode: 'forward' } });
      const stored = await call<DataEnvelope<Transaction>>(bystander, 'GET', `/institutions/transactions/${sent.body.data.transactionId}`, { token: bystander.token });
      seen.push(stored.body.data.webhookFaults ?? []);
    }
    const [first, second] = await runs;
    expect(first.exitCode, first.stderr).toBe(0);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(seen.length).toBeGreaterThan(5);
    expect(seen.flat()).toEqual([]);
    expect(anyFault(await faultState())).toBe(false);
  }, 180_000);
});
