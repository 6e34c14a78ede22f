// Rewrites the help-topic sections of README.md: everything between `<!-- topic:NAME -->` and
// `<!-- /topic -->` becomes that topic's text as written in src/help/topics.ts (unwrapped: `cardctl
// help NAME` fits it to the terminal). test/unit/help.test.ts checks the README matches.
// Usage: node scripts/readme-topics.mjs
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundled = await build({
  entryPoints: [fileURLToPath(new URL('../src/help/topics.ts', import.meta.url))],
  bundle: true, format: 'esm', platform: 'node', write: false, logLevel: 'error',
});
const { HELP_TOPICS } = await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`);
const topics = new Map(HELP_TOPICS.map((topic) => [topic.name, topic.text]));

const readmeUrl = new URL('../README.md', import.meta.url);
const readme = readFileSync(readmeUrl, 'utf8');
const next = readme.replace(/(<!-- topic:([a-z-]+) -->\n)[\s\S]*?(<!-- \/topic -->)/g, (whole, open, name, close) => {
  if (!topics.has(name)) throw new Error(`README.md names a help topic that does not exist: ${name}`);
  return `${open}${topics.get(name)}${close}`;
});
writeFileSync(readmeUrl, next);
console.error(next === readme ? 'README.md topics already current' : 'README.md topics rewritten');
