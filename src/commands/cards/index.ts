import { defineGroup } from '../../contract/command.js';
import activate from './activate.js';
import create from './create.js';
import customer from './customer/index.js';
import deactivate from './deactivate.js';
import get from './get.js';
import list from './list.js';
import pin from './pin/index.js';
import renew from './renew.js';
import report from './report/index.js';

export default defineGroup({
  name: 'cards',
  summary: 'issue, list, renew, activate and deactivate cards; PINs; cardholders; bulk reports',
  commands: [list, get, create, renew, pin, customer, activate, deactivate, report],
});
