import { defineCommand, notImplemented } from '../core/command.js';

export default defineCommand({
  name: 'demo',
  summary: 'walk through the main job against an in-memory sandbox',
  examples: ['cardctl demo', 'cardctl demo --json'],
  run: notImplemented('demo'),
});
