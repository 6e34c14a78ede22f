import { defineCommand, notImplemented } from '../core/command.js';

export default defineCommand({
  name: 'completion',
  summary: 'print a shell completion script',
  arguments: [{ syntax: '<shell>', description: 'bash, zsh or fish' }],
  examples: ['cardctl completion bash > ~/.local/share/bash-completion/completions/cardctl', 'cardctl completion zsh > "${fpath[1]}/_cardctl"'],
  run: notImplemented('completion'),
});
