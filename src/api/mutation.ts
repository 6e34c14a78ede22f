/** Is this request one that changes state? (Activate/deactivate are GETs in this API; the token and the sandbox's card pool are POSTs that read.) */
export function isMutation(method: string, path: string): boolean {
  if (method !== 'GET') return !/\/(oauth\/token|sandbox\/card-pool)$/.test(path);
  return /\/(activate|deactivate)(\?|$)/.test(path);
}
