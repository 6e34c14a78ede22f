// `webhook exchanges` and `webhook replay` as `cardctl mcp` sees them: sandbox tools, and a
// scenario file is never written for an assistant.
import { describe, expect, it } from 'vitest';
import { commandTree } from '../../src/commands/index.js';
import { commandTools } from '../../src/mcp/tools.js';

const tools = commandTools(commandTree);

describe('the exchange commands under cardctl mcp', () => {
  it('are sandbox tools; --as-scenario and its flags are no inputs, the list\'s filters are', () => {
    const exchanges = tools.find((t) => t.name === 'webhook_exchanges')!;
    const replay = tools.find((t) => t.name === 'webhook_replay')!;
    expect([exchanges.use, replay.use]).toEqual(['simulate', 'simulate']);
    const inputs = Object.keys(exchanges.inputSchema.properties ?? {});
    expect(inputs).toEqual(expect.arrayContaining(['tx', 'failed', 'since']));
    expect(inputs.filter((name) => ['asScenario', 'keepSpacing', 'force'].includes(name))).toEqual([]);
    expect(exchanges.inputSchema.additionalProperties).toBe(false);
  });
});
