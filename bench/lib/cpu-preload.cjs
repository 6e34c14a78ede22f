// Loaded into a measured child with --require (bench/lib/cpu.mjs): writes its CPU time, user and
// system, in microseconds, to CARDCTL_BENCH_CPU_FILE as it exits.
process.on('exit', () => {
  const { userCPUTime, systemCPUTime } = process.resourceUsage();
  require('node:fs').writeFileSync(process.env.CARDCTL_BENCH_CPU_FILE, String(userCPUTime + systemCPUTime));
});
