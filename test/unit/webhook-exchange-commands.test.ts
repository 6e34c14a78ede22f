// `webhook exchanges` and `webhook replay` as `cardctl mcp` sees them: sandbox tools, and a
// scenario file is never written for an assistant.
import { describe, expect, it } from 'vitest';
import { commandTree } from '../../src/commands/index.js';
import { commandTools } from '../../src/mcp/tools.js';

const tools = commandTools(commandTree);

describe('the exchange commands under cardctl mcp', () => {
  it('are sandbox tools; --as-scenario is refused, a plain list is not', () => {
    const exchanges = tools.find((t) => t.name === 'webhook_exchanges')!;
    const replay = tools.find((t) => t.name === 'webhook_replay')!;
    expect([exchanges.use, replay.use]).toEqual(['simulate', 'simulate']);
    expect(() => exchanges.bound!({ asScenario: 'x.yaml' })).toThrow(/not offered to an assistant/);
    expect(() => exchanges.bound!({ failed: true, since: '30m' })).not.toThrow();
  });
});
