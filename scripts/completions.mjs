// Regenerates the committed completion scripts in completions/ from the built CLI
// (`npm run completions` builds first). test/unit/completion.test.ts checks they are current.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/cardctl.js', import.meta.url));
const files = { bash: 'cardctl.bash', zsh: '_cardctl', fish: 'cardctl.fish' };

for (const [shell, name] of Object.entries(files)) {
  const script = execFileSync(process.execPath, [bin, 'completion', shell], { encoding: 'utf8' });
  writeFileSync(new URL(`../completions/${name}`, import.meta.url), script);
  console.error(`wrote completions/${name}`);
}
