import { defineGroup } from '../../app/command.js';
import exchanges from './exchanges.js';
import listen from './listen.js';
import replay from './replay.js';

export default defineGroup({ name: 'webhook', summary: 'test your webhook against simulated switch traffic', commands: [listen, exchanges, replay] });
