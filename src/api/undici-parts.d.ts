// Types for the undici modules src/api/undici.ts loads on their own instead of undici's index
// (loadAgentClass, loadRequest). Each is CommonJS with a single export, which an ESM import sees as default.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  /** Dispatcher.prototype.request before undici's index attaches it: call it with the dispatcher as `this`. */
  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
  export default request;
}
