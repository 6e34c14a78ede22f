// Runs in every test worker before its test file: the fake home of the global setup
// (test/setup/isolated-home.ts), also when a pool did not copy the main process's environment.
import { homedir } from 'node:os';
import { inject } from 'vitest';
import { loadColours } from '../../src/output/style.js';

const isolated = inject('isolatedEnv');
Object.assign(process.env, isolated);
for (const name of ['CARDCTL_CONFIG_DIR', 'CARDCTL_DATA_DIR', 'CARDCTL_JOURNAL_DIR']) delete process.env[name];
if (homedir() !== isolated.HOME) throw new Error(`test worker: os.homedir() is ${homedir()}, not the tests' fake home ${isolated.HOME}`);

// Contexts made directly by tests (not through main()) may turn colour on: chalk is loaded for them
// as main() loads it for a terminal (src/output/style.ts).
await loadColours({ env: { FORCE_COLOR: '1' }, stdoutIsTTY: true });
