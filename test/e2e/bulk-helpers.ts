// What the bulk e2e tests share: a sandbox process holding N imported cards, and the reports'
// rows of a bulk run.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { cardctl, startSandboxProcess } from '../helpers/cli.js';

export const HEADER = 'realId,active,startDate,endDate,firstName,lastName,middleName,email,address1,address2,city,state,zip,country,birthDate,phone,institutionId,'
  + 'card.expiration,card.serviceCode,card.cardProduct,card.embossingName,card.defaultPIN,card.bin,card.cardState,returnSecure';

export interface CardRecord { id: string; referenceCode: string; status: string; expiryMonth: string; expiryYear: number; seqNumber: string; customer: { emailAddress: string; firstName: string } }
export interface Entry { row: number; id?: string; outcome: string; code?: string; message?: string; [key: string]: unknown }

/** A report: its first line names the run (verb, the input's SHA-256, K/N when sharded), then the rows, then an end line when the run read its input to the end. */
export const shardReport = (path: string, run: { verb: string; shard?: string; input?: string }): Entry[] => {
  const [header, ...rows] = readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l): Entry => JSON.parse(l));
  expect(header).toEqual({ run: { input: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), ...run, source: expect.any(String) } });
  return rows.filter((r) => !r.end);
};
export const report = (path: string, verb?: string): Entry[] => shardReport(path, verb ? { verb } : { verb: expect.any(String) });
export const sha256 = (path: string) => `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`;

export async function sandboxWithCards(dir: string, prefix: string, count: number) {
  const sandbox = await startSandboxProcess(['--quiet-log'], { configDir: dir });
  const env = { CARDCTL_BASE_URL: sandbox.info.baseUrl, CARDCTL_API_KEY: sandbox.info.apiKey, CARDCTL_TOKEN: sandbox.info.token };
  const lines = [HEADER];
  for (let i = 1; i <= count; i++) {
    lines.push([`${prefix}-${String(i).padStart(4, '0')}`, 'true', '2024-01-01', '2028-12-31', 'Ada', 'Obi', '', `ada${i}@example.com`, '1 Marina', '', 'Lagos', 'Lagos',
      '100001', 'NG', '1990-01-31', '+2348012345678', sandbox.info.institutionId, '202812', '101', 'classic', 'ADA OBI', '4821', '506099', 'active', 'false'].join(','));
  }
  const file = join(dir, `${prefix}.csv`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  const imported = await cardctl(['import', '--from-file', file, '--concurrency', '16', '-q'], { configDir: dir, env, timeout: 120_000 });
  expect(imported.exitCode, imported.stderr).toBe(0);
  const allCards = async (): Promise<CardRecord[]> => {
    const cards: CardRecord[] = [];
    for (let page = 1; ; page++) {
      const response = await fetch(`${sandbox.info.baseUrl}/institutions/cards?limit=100&page=${page}`, { headers: { authorization: `Bearer ${sandbox.info.token}` } });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: CardRecord[]; pagination: { pages: number } };
      cards.push(...body.data);
      if (page >= body.pagination.pages) break;
    }
    return cards.sort((a, b) => a.referenceCode.localeCompare(b.referenceCode));
  };
  const setFaults = async (body: Record<string, unknown>) => {
    const response = await fetch(`${sandbox.info.baseUrl}/sandbox/faults`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.status).toBe(200);
    return (await response.json()) as { counts: Record<string, number> };
  };
  const faultCounts = async () => ((await (await fetch(`${sandbox.info.baseUrl}/sandbox/faults`)).json()) as { counts: Record<string, number> }).counts;
  return { sandbox, env, allCards, setFaults, faultCounts };
}
