import { defineGroup } from '../../contract/command.js';
import list from './list.js';
import remove from './remove.js';
import set from './set.js';
import setDialect from './set-dialect.js';
import show from './show.js';
import use from './use.js';

export default defineGroup({ name: 'profile', summary: 'manage stored profiles', commands: [list, use, show, set, setDialect, remove] });
