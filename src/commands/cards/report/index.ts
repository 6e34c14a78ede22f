import { defineGroup } from '../../../contract/command.js';
import merge from './merge.js';

export default defineGroup({ name: 'report', summary: 'the reports of bulk runs (--report): join the shards\' into one', commands: [merge] });
