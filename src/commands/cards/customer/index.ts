import { defineGroup } from '../../../contract/command.js';
import update from './update.js';

export default defineGroup({ name: 'customer', summary: "update a card's cardholder", commands: [update] });
