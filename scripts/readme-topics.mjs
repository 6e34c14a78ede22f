// Rewrites the help-topic sections of README.md from the built CLI: everything between
// `<!-- topic:NAME -->` and `<!-- /topic -->` becomes the output of `cardctl help NAME`.
// The topic texts live in src/help/topics.ts; test/unit/help.test.ts checks the README matches.
// Usage: npm run build && node scripts/readme-topics.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/cardctl.js', import.meta.url));
const readmeUrl = new URL('../README.md', import.meta.url);
const readme = readFileSync(readmeUrl, 'utf8');

const next = readme.replace(/(<!-- topic:([a-z-]+) -->\n)[\s\S]*?(<!-- \/topic -->)/g, (_, open, name, close) => {
  const text = execFileSync(process.execPath, [bin, 'help', name], { encoding: 'utf8' });
  return `${open}${text}${close}`;
});
writeFileSync(readmeUrl, next);
console.error(next === readme ? 'README.md topics already current' : 'README.md topics rewritten');
