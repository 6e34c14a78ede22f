// Text for stdout from the answers bin/cardctl.js gives without the bundle (--version, cached
// --help), written to fd 1 directly: creating process.stdout (a pipe's stream) costs ~2.5 ms on
// Node 24, 1.11× of `node -e 0` for `--version` against 0.97× without it (BENCHMARKS.md, "Node's
// floor"). A reader that went away (`cardctl --help | head -1`) is not an error; a non-blocking
// descriptor that is full takes the stream for the rest, which waits for the reader.
'use strict';
const { writeSync } = require('node:fs');

function print(text) {
  let rest = Buffer.from(text);
  try {
    while (rest.length > 0) rest = rest.subarray(writeSync(1, rest));
  } catch (error) {
    if (error.code === 'EPIPE') process.exit(0);
    if (error.code !== 'EAGAIN') throw error;
    process.stdout.on('error', (streamError) => {
      if (streamError.code === 'EPIPE') process.exit(0);
      throw streamError;
    });
    process.stdout.write(rest);
  }
}

module.exports = { print };
