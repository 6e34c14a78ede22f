import { defineGroup } from '../../contract/command.js';
import certify from './certify.js';
import exchanges from './exchanges.js';
import listen from './listen.js';
import replay from './replay.js';

export default defineGroup({
  name: 'webhook',
  summary: 'play your webhook locally (listen), certify it before go-live (certify), inspect and replay what the sandbox sent it (exchanges, replay)',
  commands: [listen, certify, exchanges, replay],
});
