import { defineGroup } from '../../../contract/command.js';
import change from './change.js';
import reset from './reset.js';

export default defineGroup({ name: 'pin', summary: "change or reset a card's PIN", commands: [change, reset] });
