import { defineGroup } from '../../contract/command.js';
import status from './status.js';
import token from './token.js';

export default defineGroup({ name: 'auth', summary: 'check and use the stored credentials', commands: [status, token] });
