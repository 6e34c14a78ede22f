// The short version of bench/load.mjs (which runs 30 s and whose figures are in BENCHMARKS.md):
// 200 concurrent autocannon clients for 8 s against the built sandbox on a SQLite file. Zero
// 5xx, zero errors, every 201 in the store once, nothing unknown, RSS not running away.
// Run `npm run build` first.
import { execa } from 'execa';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const LOAD = fileURLToPath(new URL('../../bench/load.mjs', import.meta.url));

describe('load', () => {
  it('200 concurrent clients: no 5xx, no lost or duplicated writes, memory flat', async () => {
    const result = await execa('node', [LOAD, '--connections', '200', '--duration', '8', '--json'], { reject: false, timeout: 90_000 });
    const summary = JSON.parse(String(result.stdout).trim().split('\n').at(-1)!);
    expect(summary.failures, String(result.stderr)).toEqual([]);
    expect(summary.status['5xx']).toBe(0);
    expect(summary.errors).toBe(0);
    expect(summary.writes.created201).toBeGreaterThan(100);
    expect(summary.writes).toMatchObject({ lost: 0, duplicated: 0, unknown: 0 });
    expect(result.exitCode).toBe(0);
  }, 100_000);
});
