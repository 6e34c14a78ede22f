// "Did you mean …?" for unknown commands, options and help topics.

/** `did you mean `cards`?` / `did you mean `list` or `ls`?` */
export function didYouMean(suggestions: string[]): string {
  return `did you mean ${suggestions.map((s) => `\`${s}\``).join(' or ')}?`;
}

/** Candidates within a small edit distance of `word`, closest first. */
export function closestWords(word: string, candidates: string[]): string[] {
  const scored = candidates
    .map((candidate) => ({ candidate, distance: editDistance(word.toLowerCase(), candidate.toLowerCase()) }))
    .filter(({ candidate, distance }) => distance <= Math.max(1, Math.floor(candidate.length / 3)) || candidate.startsWith(word))
    .sort((a, b) => a.distance - b.distance);
  const best = scored[0]?.distance;
  return scored.filter((s) => s.distance === best).map((s) => s.candidate);
}

/** Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}
