// The CPU time (user + system) of a measured child process, beside its wall time: on a busy
// machine a process waits for a core, which blurs wall times but not the CPU each one spends.
//
//   const cpu = cpuProbe();
//   spawnSync(node, [...cpu.args, script], { env: { ...env, ...cpu.env } });
//   cpu.readMs();   // the child's CPU time in ms
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PRELOAD = fileURLToPath(new URL('./cpu-preload.cjs', import.meta.url));
let probes = 0;

export function cpuProbe() {
  const file = join(tmpdir(), `cardctl-bench-cpu-${process.pid}-${probes++}`);
  return {
    args: ['--require', PRELOAD],
    env: { CARDCTL_BENCH_CPU_FILE: file },
    readMs() {
      const microseconds = Number(readFileSync(file, 'utf8'));
      rmSync(file, { force: true });
      return microseconds / 1000;
    },
  };
}
