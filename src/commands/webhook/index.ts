import { defineGroup } from '../../app/command.js';
import certify from './certify.js';
import listen from './listen.js';

export default defineGroup({ name: 'webhook', summary: 'play your webhook locally (listen), certify it before go-live (certify)', commands: [listen, certify] });
