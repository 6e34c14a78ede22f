// The MCP server of `cardctl mcp` (the SDK's low-level Server over stdio, so that input schemas
// are the plain JSON Schema derived from the flags): tools/list gives the tools in scope,
// tools/call runs one (call.ts), resources/list and resources/read give the help topics.
// Nothing but the protocol is written to stdout; the log goes to stderr.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ErrorCode, ListResourcesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';
import type { CliHost } from '../contract/command.js';
import { VERSION } from '../version.js';
import { callTool, type CallSettings } from './call.js';
import { helpResources, readHelpResource } from './resources.js';
import type { Tool } from './tools.js';

export interface ServeOptions {
  host: Pick<CliHost, 'run'>;
  tools: readonly Tool[];
  settings: Omit<CallSettings, 'client' | 'askPerson'>;
  stdin: Readable;
  stdout: Writable;
  signal: AbortSignal;
}

/** Serves until the client closes stdin, the transport closes or the signal aborts. */
export async function serveMcp(options: ServeOptions): Promise<void> {
  const server = new Server({ name: 'cardctl', version: VERSION }, { capabilities: { tools: {}, resources: {} } });
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const client = () => {
    const info = server.getClientVersion();
    return info ? `${info.name}/${info.version}` : 'unknown';
  };
  const askPerson = async (question: string): Promise<'yes' | 'no' | 'cannot ask'> => {
    if (!server.getClientCapabilities()?.elicitation) return 'cannot ask';
    try {
      const answer = await server.elicitInput({
        message: question,
        requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean', title: 'Go ahead', description: 'the change is made on production' } }, required: ['confirm'] },
      });
      return answer.action === 'accept' && answer.content?.confirm === true ? 'yes' : 'no';
    } catch (error) {
      // A client that says it can ask but fails to: not a yes.
      options.settings.log(`could not ask for confirmation: ${error instanceof Error ? error.message : String(error)}`);
      return 'no';
    }
  };
  const settings: CallSettings = { ...options.settings, client, askPerson };

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: options.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema })),
  }));
  // Calls in flight: a client that sends its requests and closes stdin still gets every answer.
  const inFlight = new Set<Promise<unknown>>();
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `no tool "${request.params.name}" on this server: ${unknownToolReason(request.params.name)}`);
    const call = callTool(options.host, tool, request.params.arguments ?? {}, settings, extra.signal);
    inFlight.add(call);
    try {
      return await call;
    } finally {
      // Removed once the answer has been handed to the transport (the turn after the handler's).
      setImmediate(() => inFlight.delete(call));
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: helpResources() }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const contents = readHelpResource(request.params.uri);
    if (!contents) throw new McpError(ErrorCode.InvalidParams, `no resource ${request.params.uri}: help topics are cardctl-help://<topic>`);
    return { contents: [contents] };
  });

  const transport = new StdioServerTransport(options.stdin, options.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
    options.stdin.once('end', resolve);
    options.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  await closed;
  while (inFlight.size > 0 && !options.signal.aborted) {
    await Promise.allSettled(inFlight);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await server.close();
}

/** Why a tool is not offered: the scope the server was started with, said as what to do. */
function unknownToolReason(name: string): string {
  return `tools that change anything are offered only when the server is started with --allow-write naming their group (e.g. --allow-write ${name.split('_')[0]}); simulations only on a sandbox profile`;
}
