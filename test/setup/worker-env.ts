// Runs in every test worker before its test file: the fake home of the global setup
// (test/setup/isolated-home.ts), also when a pool did not copy the main process's environment.
import { homedir } from 'node:os';
import { inject } from 'vitest';

const isolated = inject('isolatedEnv');
Object.assign(process.env, isolated);
for (const name of ['CARDCTL_CONFIG_DIR', 'CARDCTL_DATA_DIR', 'CARDCTL_JOURNAL_DIR']) delete process.env[name];
if (homedir() !== isolated.HOME) throw new Error(`test worker: os.homedir() is ${homedir()}, not the tests' fake home ${isolated.HOME}`);
