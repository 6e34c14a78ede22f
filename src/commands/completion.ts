import { defineCommand } from '../contract/command.js';
import { UsageError } from '../core/errors.js';

export default defineCommand({
  name: 'completion',
  mcp: 'never',
  summary: 'print a shell completion script',
  description: `Print the completion script for bash, zsh or fish: commands, subcommands, flags, their
values (statuses, channels, formats, …) and stored profile names. Where each shell reads it
(the examples write it there):

  bash  ~/.local/share/bash-completion/completions/cardctl
  zsh   "\${fpath[1]}/_cardctl" (then start a new shell)
  fish  ~/.config/fish/completions/cardctl.fish`,
  args: [{ syntax: '<shell>', description: 'bash, zsh or fish' }],
  examples: [
    'cardctl completion bash > ~/.local/share/bash-completion/completions/cardctl',
    'cardctl completion zsh > "${fpath[1]}/_cardctl"',
    'cardctl completion fish > ~/.config/fish/completions/cardctl.fish',
    "echo 'source <(cardctl completion bash)' >> ~/.bashrc",
  ],
  async parse({ args, cli }) {
    const shell = String(args[0] ?? '');
    const { isShell, SHELLS } = await import('../completion/index.js');
    if (!isShell(shell)) {
      throw new UsageError(`unknown shell "${shell}"`, { hint: `give one of: ${SHELLS.join(', ')}, e.g. \`cardctl completion bash\`` });
    }
    return { shell, cli };
  },
  async run(ctx, { shell, cli }) {
    const { generateCompletion } = await import('../completion/index.js');
    ctx.io.out(generateCompletion(shell, await cli.program()));
  },
});
