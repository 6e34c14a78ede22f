import { defineGroup } from '../../contract/command.js';
import advice from './advice.js';
import authorization from './authorization.js';
import clock from './clock.js';
import complete from './complete.js';
import expire from './expire.js';
import financial from './financial.js';
import increment from './increment.js';
import load from './load.js';
import refund from './refund.js';
import repeat from './repeat.js';
import reversal from './reversal.js';
import run from './run.js';

export default defineGroup({
  name: 'simulate',
  summary: 'simulate card-switch transactions (sandbox)',
  commands: [authorization, financial, reversal, increment, complete, refund, advice, repeat, expire, clock, run, load],
});
