import { defineGroup } from '../../contract/command.js';
import update from './update.js';

export default defineGroup({ name: 'users', summary: 'manage institution users', commands: [update] });
