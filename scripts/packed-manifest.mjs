// The manifest the tarball carries has no `prepare`: that script builds dist/ in a git clone
// (`npm install` there, or an install from a git URL), and a tarball already holds dist/. npm
// lists a tarball's own `prepare` as an install script with a warning on `npm install -g`.
// `strip` (prepack) keeps package.json as it was beside it and removes the script; `restore`
// (postpack, and any later strip after a pack that failed half way) puts the original back.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const manifest = new URL('../package.json', import.meta.url);
const kept = new URL('../package.json.unpacked', import.meta.url);

function restore() {
  if (existsSync(kept)) renameSync(kept, manifest);
}

const step = process.argv[2];
if (step === 'strip') {
  restore();
  const text = readFileSync(manifest, 'utf8');
  const parsed = JSON.parse(text);
  writeFileSync(kept, text);
  delete parsed.scripts.prepare;
  writeFileSync(manifest, `${JSON.stringify(parsed, null, 2)}\n`);
} else if (step === 'restore') {
  restore();
} else {
  console.error('usage: node scripts/packed-manifest.mjs strip|restore');
  process.exit(2);
}
