// --since / --until of the tx commands: the one date parser of core/datetime.ts.
export { parseTimeBound } from '../../core/datetime.js';
