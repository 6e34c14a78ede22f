// What the list benchmarks (bench/cards.mjs, bench/transactions.mjs) share: `cardctl <list> --all
// -o ndjson` beside a plain undici script that fetches the same pages of the same API path and
// prints the same NDJSON, each measured as a child process (wall time from spawn to exit, peak RSS,
// NDJSON lines printed), one table per size, a cost curve over the sizes, and the ratios reported
// through reportRatio.
//
//   const list = listComparison({ work, sandbox, bench: 'cards', args: ['cards', 'list', '--all', '-o', 'ndjson'],
//     path: '/institutions/cards', noun: 'cards', rounds: 3 });
//   bySize.push({ size, seedSeconds, ...(await list.compareAt(size)) });   // per size, once seeded
//   list.printCostCurve(bySize);
//   list.reportFlatness(bySize);
//
// Peak RSS comes from /usr/bin/time -f '%e %M', or process.resourceUsage().maxRSS through a
// preload where there is no /usr/bin/time. `baseline` (a bin/cardctl.js of another build, e.g. a
// checkout of the commit before a change) is measured in the same rounds, as a third row.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, track } from './processes.mjs';
import { median, reportRatio } from './results.mjs';

export const fmt = (n) => n.toLocaleString('en-US');

/**
 * Writes (into `work`) the plain baseline: undici, GET `path`?page=N&limit=`limit` until the last
 * page, every item as one JSON line on stdout. It reads BASE_URL and TOKEN from its environment.
 */
export function writePlainScript(work, path, limit) {
  const script = join(work, 'plain.mjs');
  const undiciUrl = new URL('../../node_modules/undici/index.js', import.meta.url).href;
  writeFileSync(script, `
import { request, Agent } from ${JSON.stringify(undiciUrl)};
const base = process.env.BASE_URL;
const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
for (let page = 1; ; page++) {
  const res = await request(base + '${path}?page=' + page + '&limit=${limit}', {
    dispatcher, headers: { authorization: 'Bearer ' + process.env.TOKEN, accept: 'application/json' },
  });
  const body = JSON.parse(await res.body.text());
  let out = '';
  for (const item of body.data) out += JSON.stringify(item) + '\\n';
  if (!process.stdout.write(out)) await new Promise((resolve) => process.stdout.once('drain', resolve));
  if (body.pagination ? page >= body.pagination.pages : body.data.length < ${limit}) break;
}
await dispatcher.close();
`);
  return script;
}

/**
 * A measure(scriptArgs, env) that runs `node ...scriptArgs` (env on top of this process's), counts
 * the NDJSON lines it prints, and resolves { wallMs, rssMb, lines }; `via` says where peak RSS comes from.
 */
export function makeMeasure(work) {
  const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
  const preload = join(work, 'rusage.mjs');
  writeFileSync(preload, `
import { writeFileSync } from 'node:fs';
process.on('exit', () => writeFileSync(process.env.RUSAGE_FILE, String(process.resourceUsage().maxRSS)));
`);

  function measure(scriptArgs, env) {
    const rusageFile = join(work, `rusage-${randomBytes(4).toString('hex')}`);
    const timeFile = `${rusageFile}.time`;
    const nodeArgs = timeBin ? scriptArgs : ['--import', preload, ...scriptArgs];
    const command = timeBin ? timeBin : process.execPath;
    const argv = timeBin ? ['-f', '%e %M', '-o', timeFile, process.execPath, ...nodeArgs] : nodeArgs;
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const child = track(spawn(command, argv, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env, RUSAGE_FILE: rusageFile } }));
      let lines = 0;
      child.stdout.on('data', (chunk) => {
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      });
      child.once('exit', (code) => {
        const wallMs = performance.now() - started;
        if (code !== 0) return reject(new Error(`${scriptArgs.join(' ')} exited with ${code}`));
        const rssKb = timeBin ? Number(readFileSync(timeFile, 'utf8').trim().split(/\s+/).pop()) : Number(readFileSync(rusageFile, 'utf8'));
        resolve({ wallMs, rssMb: rssKb / 1024, lines });
      });
    });
  }
  measure.via = timeBin ? '/usr/bin/time' : 'process.resourceUsage';
  return measure;
}

/**
 * `cardctl ...args` beside the plain script for `path`, on `sandbox`, with `work` as the CLI's
 * config dir. `noun` names the items in headings ('transactions'), `short` in figures and
 * reported names ('tx'); `bench` is the file reporting.
 */
export function listComparison({ work, sandbox, bench, args, path, noun, short = noun, rounds, page = 100, baseline }) {
  const command = args.join(' ');
  const plainScript = writePlainScript(work, path, page);
  const measure = makeMeasure(work);
  const cliArgs = [BIN, ...args];
  const cliEnv = { CARDCTL_CONFIG_DIR: work, CARDCTL_DATA_DIR: work, CARDCTL_BASE_URL: sandbox.baseUrl, CARDCTL_TOKEN: sandbox.token, CI: '1' };
  const plainEnv = { BASE_URL: sandbox.baseUrl, TOKEN: sandbox.token };

  /**
   * With the sandbox holding `size` items: one warm-up of each client (sandbox caches, JIT, page
   * cache), then `rounds` interleaved rounds, each run printing exactly `size` lines. Prints the
   * table of medians and the ratios, reports the wall-time ratio, resolves { cardctl, plain }
   * medians ({ wallMs, rssMb, maxRssMb }).
   */
  async function compareAt(size) {
    const results = { cardctl: [], plain: [], ...(baseline ? { baseline: [] } : {}) };
    const baselineArgs = baseline ? [baseline, ...args] : undefined;
    await measure(cliArgs, cliEnv);
    await measure([plainScript], plainEnv);
    if (baselineArgs) await measure(baselineArgs, cliEnv);
    for (let round = 0; round < rounds; round++) {
      const a = await measure(cliArgs, cliEnv);
      const b = await measure([plainScript], plainEnv);
      const c = baselineArgs ? [['baseline', await measure(baselineArgs, cliEnv)]] : [];
      for (const [name, r] of [['cardctl', a], ['plain', b], ...c]) {
        if (r.lines !== size) throw new Error(`${name} printed ${r.lines} lines, expected ${size}`);
        results[name].push(r);
      }
    }
    const summary = Object.fromEntries(Object.entries(results).map(([name, rs]) => [name, {
      wallMs: median(rs.map((r) => r.wallMs)),
      rssMb: median(rs.map((r) => r.rssMb)),
      maxRssMb: Math.max(...rs.map((r) => r.rssMb)),
    }]));
    const { cardctl, plain, baseline: before } = summary;
    console.log(`\n${fmt(size)} ${noun}, ${fmt(Math.ceil(size / page))} pages of ${page}, ${rounds} rounds (median), peak RSS via ${measure.via}`);
    console.log(`| | wall time | ${short}/s | peak RSS (median / max) |`);
    console.log('|---|---|---|---|');
    console.log(`| \`cardctl ${command}\` | ${(cardctl.wallMs / 1000).toFixed(2)} s | ${fmt(Math.round(size / (cardctl.wallMs / 1000)))} | ${cardctl.rssMb.toFixed(1)} / ${cardctl.maxRssMb.toFixed(1)} MB |`);
    console.log(`| plain undici script | ${(plain.wallMs / 1000).toFixed(2)} s | ${fmt(Math.round(size / (plain.wallMs / 1000)))} | ${plain.rssMb.toFixed(1)} / ${plain.maxRssMb.toFixed(1)} MB |`);
    if (before) console.log(`| \`cardctl\` of ${baseline} | ${(before.wallMs / 1000).toFixed(2)} s | ${fmt(Math.round(size / (before.wallMs / 1000)))} | ${before.rssMb.toFixed(1)} / ${before.maxRssMb.toFixed(1)} MB |`);
    console.log(`| **ratio cardctl / plain** | **${(cardctl.wallMs / plain.wallMs).toFixed(2)}×** | | **${(cardctl.rssMb / plain.rssMb).toFixed(2)}×** |`);
    reportRatio({
      bench,
      name: `${command}, ${fmt(size)} ${short} (wall time)`,
      value: Math.round(cardctl.wallMs), unit: 'ms',
      peer: 'plain undici loop', peerValue: Math.round(plain.wallMs),
      ratio: cardctl.wallMs / plain.wallMs,
      aim: { max: 1.25 },
      note: `median of ${rounds} interleaved rounds, pages of ${page}`,
    });
    return summary;
  }

  /** Prints one line per size of `bySize` ({ size, seedSeconds, cardctl, plain }): medians and seeding time. */
  function printCostCurve(bySize) {
    console.log('\ncost curve (medians): size | cardctl wall | plain wall | cardctl RSS | plain RSS | seeding');
    for (const r of bySize) {
      console.log(`  ${fmt(r.size).padStart(7)} | ${(r.cardctl.wallMs / 1000).toFixed(2).padStart(7)} s | ${(r.plain.wallMs / 1000).toFixed(2).padStart(7)} s | ${r.cardctl.rssMb.toFixed(1).padStart(6)} MB | ${r.plain.rssMb.toFixed(1).padStart(6)} MB | ${r.seedSeconds.toFixed(1)} s`);
    }
  }

  /**
   * Flatness: cardctl's peak RSS at the largest size against 10,000 (or the size before the largest
   * when 10,000 was not measured); reported with `aim` when given, nothing when one size was measured.
   */
  function reportFlatness(bySize, aim) {
    const largest = bySize[bySize.length - 1];
    const base = bySize.find((r) => r.size === 10_000) ?? bySize[bySize.length - 2];
    if (!base || base === largest) return;
    reportRatio({
      bench,
      name: `${command}, peak RSS at ${fmt(largest.size)} ${short}`,
      value: Number(largest.cardctl.rssMb.toFixed(1)), unit: 'MB',
      peer: `RSS at ${fmt(base.size)}`, peerValue: Number(base.cardctl.rssMb.toFixed(1)),
      ratio: largest.cardctl.rssMb / base.cardctl.rssMb,
      ...(aim ? { aim } : {}),
      note: 'flatness: peak RSS as the list grows, medians',
    });
  }

  return { compareAt, printCostCurve, reportFlatness };
}
