// `--shard K/N`: a run's rows split across N runners, the K-th taking rows K, K+N, K+2N, … Only
// canonical integers are accepted (1 ≤ K ≤ N ≤ MAX_SHARDS, no sign, no leading zero, no spaces),
// so that one split has one spelling: the report's header and the merge compare the text.

/** `--shard K/N` parsed. */
export interface Shard {
  index: number;
  count: number;
}

/** The most runners one input may be split across. */
export const MAX_SHARDS = 1000;

/** "K/N" read as a shard, or undefined when it is not one (the one rule; messages are the caller's). */
export function parseShardText(text: string): Shard | undefined {
  const match = /^([1-9][0-9]{0,3})\/([1-9][0-9]{0,3})$/.exec(text);
  if (!match) return undefined;
  const index = Number(match[1]);
  const count = Number(match[2]);
  return index <= count && count <= MAX_SHARDS ? { index, count } : undefined;
}

/** The shard as its header and messages spell it: "2/4". */
export function formatShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

export function inShard(row: number, shard: Shard | undefined): boolean {
  return !shard || (row - shard.index) % shard.count === 0;
}
