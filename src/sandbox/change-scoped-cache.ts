// Values derived from the database that hold while nothing has been written since they were
// worked out. store.changeToken() moves with every row written through the sandbox and every
// commit by another connection; when it moves, every map of the cache is emptied. While it is
// undefined (inside a transaction, whose writes may yet be rolled back) nothing is read from or
// kept in the maps. Get Cards keeps its pages, totals and listed programs this way
// (routes/cards.ts).
export class ChangeScopedCache {
  private token: string | undefined;
  private readonly maps: Array<ChangeScopedMap<any>> = [];

  constructor(private readonly changeToken: () => string | undefined) {}

  /** A map of this cache, emptied when its entries would weigh more than `budget` (by `weigh`). */
  map<V>(budget: number, weigh: (value: V) => number = () => 1): ChangeScopedMap<V> {
    const map = new ChangeScopedMap<V>(budget, weigh, () => this.token !== undefined);
    this.maps.push(map);
    return map;
  }

  /** Call once per request, before using the maps: empties them if anything was written since. */
  refresh(): void {
    const token = this.changeToken();
    if (token !== this.token) for (const map of this.maps) map.clear();
    this.token = token;
  }
}

export class ChangeScopedMap<V> {
  private readonly entries = new Map<string, V>();
  private weight = 0;

  constructor(
    private readonly budget: number,
    private readonly weigh: (value: V) => number,
    private readonly usable: () => boolean,
  ) {}

  has(key: string): boolean {
    return this.usable() && this.entries.has(key);
  }

  get(key: string): V | undefined {
    return this.usable() ? this.entries.get(key) : undefined;
  }

  set(key: string, value: V): void {
    if (!this.usable()) return;
    if (this.entries.has(key)) this.weight -= this.weigh(this.entries.get(key)!);
    const weight = this.weigh(value);
    if (this.weight + weight > this.budget) this.clear();
    this.entries.set(key, value);
    this.weight += weight;
  }

  clear(): void {
    this.entries.clear();
    this.weight = 0;
  }
}
