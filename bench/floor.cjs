// The floor for a one-request command (bench/one-request.mjs): a CommonJS script that makes one
// GET with Node's built-in http and prints the data, nothing else. URL and TOKEN from the
// environment. Anything cardctl does beyond this is its own cost.
const http = require('node:http');
http.get(process.env.URL, { headers: { authorization: 'Bearer ' + process.env.TOKEN } }, (r) => {
  let s = ''; r.on('data', (d) => (s += d)); r.on('end', () => process.stdout.write(JSON.stringify(JSON.parse(s).data)));
});
