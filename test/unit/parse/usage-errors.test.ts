// Exit 2 means nothing was sent: a usage error is raised by a command's parse step, before its
// run(). This test reads src/commands and finds each `new UsageError(` a run() raises, itself or
// through a function of the same file it calls; each must be one of RUN_TIME below, which says
// what it depends on that parse cannot know. A new one fails here: move it into parse.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';

/** "file: function" → why the usage error waits for run(): stdin, the profile, a prompt, the server, a socket. */
const RUN_TIME: Record<string, string> = {
  'src/commands/cards/create.ts: run': 'the answer to the confirmation prompt',
  'src/commands/cards/create-wizard.ts: complete': 'the card program as the server holds it, a body read from stdin, and answers at prompts',
  'src/commands/cards/customer/update.ts: run': 'the changes may come from stdin, or from prompts',
  'src/commands/cards/customer/update.ts: customerChanges': 'the JSON object read from stdin',
  'src/commands/cards/customer/update.ts: mergeCustomer': 'the card as the server holds it',
  'src/commands/cards/pin/change.ts: run': 'the PINs typed at the prompt or read from stdin',
  'src/commands/import-one.ts: importOne': "the institution id the profile may hold, and the PIN read from stdin or typed",
  'src/commands/login.ts: parseLogin': "the stored profile's base URL and name, and secrets read from stdin",
  'src/commands/oauth/create.ts: parseCreateOptions': 'a missing value is asked at a prompt or taken from a --from-file body on stdin (with neither, parse could refuse it: not moved yet)',
  'src/commands/oauth/update.ts: run': 'the application as the server holds it',
  'src/commands/sandbox/serve.ts: run': 'whether the port can be bound',
  'src/commands/simulate/run.ts: readScenario': 'the scenario read from stdin',
  'src/commands/simulate/scenario-sandbox.ts: scenarioSandbox': 'what the scenario\'s steps produced in the sandbox',
  'src/commands/users/update.ts: parseUpdateOptions': 'a missing value is asked at a prompt or taken from a --from-file body on stdin (with neither, parse could refuse it: not moved yet)',
  'src/commands/webhook/certify-run.ts: certify': "the profile's kind (sandbox or not)",
  'src/commands/webhook/secret-stdin.ts: checkSecretForScheme': 'the secret read from stdin or the environment',
  'src/commands/webhook/exchanges.ts: writeScenario': 'the messages the sandbox recorded',
  'src/commands/webhook/listen.ts: run': 'whether the port can be bound and the handler answers on this machine',
};

const ROOT = join(import.meta.dirname, '../../..');
const COMMANDS = join(ROOT, 'src/commands');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Where a top-level function or a definition's member starts: its name, and the lines it spans. */
const OWNER = /^(?: {2}(?:async )?(run|parse)\b|(?:export )?(?:async )?function\*? (\w+)|(?:export )?const (\w+) =)/;

interface Owner { name: string; from: number; to: number }

function owners(lines: string[]): Owner[] {
  const starts = lines.flatMap((line, index) => {
    const match = OWNER.exec(line);
    return match ? [{ name: match[1] ?? match[2] ?? match[3]!, from: index }] : [];
  });
  return starts.map((start, i) => ({ ...start, to: (starts[i + 1]?.from ?? lines.length) - 1 }));
}

interface SourceFile { name: string; lines: string[]; owners: Owner[] }

function read(file: string): SourceFile {
  const lines = readFileSync(file, 'utf8').split('\n');
  return { name: relative(ROOT, file), lines, owners: owners(lines) };
}

/**
 * Each usage error a run() raises, as "file: function": in a run() itself, or in a function of
 * src/commands that some run() calls by name.
 */
function raisedByRun(files: SourceFile[]): string[] {
  const runBodies = files.flatMap((file) => file.owners.filter((o) => o.name === 'run').map((o) => file.lines.slice(o.from, o.to + 1).join('\n'))).join('\n');
  const found = new Set<string>();
  for (const file of files) {
    file.lines.forEach((line, index) => {
      if (!line.includes('new UsageError(')) return;
      const owner = file.owners.findLast((o) => o.from <= index);
      if (!owner || owner.name === 'parse') return;
      if (owner.name === 'run' || new RegExp(`\\b${owner.name}\\(`).test(runBodies)) found.add(`${file.name}: ${owner.name}`);
    });
  }
  return [...found];
}

it('every usage error a run() raises waits for something only run time knows', () => {
  const raised = raisedByRun(sourceFiles(COMMANDS).map(read)).sort();
  expect(raised.filter((entry) => !(entry in RUN_TIME))).toEqual([]);
  // An entry whose usage error moved into parse (or went) goes from the list too.
  expect(Object.keys(RUN_TIME).filter((entry) => !raised.includes(entry))).toEqual([]);
});
