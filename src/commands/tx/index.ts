import { defineGroup } from '../../contract/command.js';
import list from './list.js';
import show from './show.js';
import summary from './summary.js';
import tail from './tail.js';

export default defineGroup({ name: 'tx', summary: 'read card transactions', aliases: ['transactions'], commands: [list, show, tail, summary] });
