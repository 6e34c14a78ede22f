/** Is this request one that changes state? (Activate/deactivate are GETs in this API.) */
export function isMutation(method: string, path: string): boolean {
  if (method !== 'GET') return !/\/oauth\/token$/.test(path);
  return /\/(activate|deactivate)(\?|$)/.test(path);
}
