import { defineGroup } from '../../core/command.js';
import authorization from './authorization.js';
import financial from './financial.js';
import reversal from './reversal.js';
import run from './run.js';

export default defineGroup({
  name: 'simulate',
  summary: 'simulate card-switch transactions (sandbox)',
  commands: [authorization, financial, reversal, run],
});
