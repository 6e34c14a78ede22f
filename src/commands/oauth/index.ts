import { defineGroup } from '../../contract/command.js';
import create from './create.js';
import keygen from './keygen.js';
import list from './list.js';
import update from './update.js';

export default defineGroup({ name: 'oauth', summary: 'manage OAuth applications', commands: [list, create, update, keygen] });
