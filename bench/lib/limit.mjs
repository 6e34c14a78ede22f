// A sandbox route's own limit, measured with autocannon: the peer of the benchmarks that drive
// one route from the CLI (import, bulk). Only 2xx answers count; any others are said on stderr.
import autocannon from 'autocannon';

/** 2xx answers a second of `options` (autocannon's: url, method, headers, body, connections, duration …). */
export function autocannonRate(label, options) {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => {
      if (error) return reject(error);
      const bad = result.non2xx + result.errors + result.timeouts;
      if (bad > 0) console.error(`  autocannon ${label}: ${bad} non-2xx/errors of ${result['2xx'] + bad}`);
      resolve(result['2xx'] / (result.duration || options.duration));
    });
  });
}
