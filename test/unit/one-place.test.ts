// Small facts written once: where a copy of one of them crept back, this names the files.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** The tracked TypeScript and JavaScript files under `dir` whose text matches `pattern`. */
function filesMatching(dir: string, pattern: RegExp): string[] {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', dir], { encoding: 'utf8' }).split('\n').filter((file) => /\.(ts|js)$/.test(file));
  return files.filter((file) => pattern.test(readFileSync(file, 'utf8')));
}

describe('one place', () => {
  it('the check that a parsed value is an object with members: core/is-object.ts', () => {
    expect(filesMatching('src', /typeof (\w+) === 'object' && \1 !== null && !Array\.isArray\(\1\)/)).toEqual(['src/core/is-object.ts']);
  });

  it("the sandbox's 413 and 415 answers: each built once", () => {
    const server = readFileSync('src/sandbox/server.ts', 'utf8');
    expect(server.match(/'PAYLOAD_TOO_LARGE'/g)).toHaveLength(1);
    expect(server.match(/'UNSUPPORTED_MEDIA_TYPE'/g)).toHaveLength(1);
  });

  it("the switch's clock: given by its owner, never defaulted where it is read", () => {
    expect(filesMatching('src/sandbox', /\bnow \?\? \(\) => new Date\(\)|\.now \?\? \(\(\) => new Date\(\)\)/)).toEqual([]);
  });

  it("this user's folders: one rule (src/config/paths.ts), which bin/cardctl.js reads built", () => {
    expect([...filesMatching('src', /\bhomedir\(/), ...filesMatching('bin', /\bhomedir\(/)]).toEqual(['src/config/paths.ts']);
    expect(readFileSync('bin/cardctl.js', 'utf8')).toMatch(/require\('\.\.\/dist\/paths\.cjs'\)\.userFolder\('cache', env\)/);
  });
});
