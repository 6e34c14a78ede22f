import { defineGroup } from '../../app/command.js';
import certify from './certify.js';
import listen from './listen.js';

export default defineGroup({ name: 'webhook', summary: 'test your webhook against simulated switch traffic', commands: [listen, certify] });
