// ChangeScopedCache: what Get Cards keeps between requests holds only until the next write.
import { describe, expect, it } from 'vitest';
import { ChangeScopedCache } from '../../src/sandbox/change-scoped-cache.js';

describe('ChangeScopedCache', () => {
  it('empties every map when the change token moves, and keeps them while it stays', () => {
    let token: string | undefined = '1';
    const cache = new ChangeScopedCache(() => token);
    const a = cache.map<number>(10);
    const b = cache.map<string>(10);
    cache.refresh();
    a.set('x', 1);
    b.set('y', 'why');
    cache.refresh();
    expect(a.get('x')).toBe(1);
    expect(b.has('y')).toBe(true);
    token = '2';
    cache.refresh();
    expect(a.get('x')).toBeUndefined();
    expect(b.has('y')).toBe(false);
  });

  it('neither reads nor keeps anything while the token is undefined (inside a transaction)', () => {
    let token: string | undefined = '1';
    const cache = new ChangeScopedCache(() => token);
    const map = cache.map<number>(10);
    cache.refresh();
    map.set('kept', 1);
    token = undefined;
    cache.refresh();
    map.set('during', 2);
    expect(map.get('kept')).toBeUndefined();
    expect(map.has('during')).toBe(false);
    token = '1';
    cache.refresh();
    expect(map.get('during')).toBeUndefined();
  });

  it('empties a map that would go over its budget, counting a replaced entry once', () => {
    const cache = new ChangeScopedCache(() => 'same');
    const map = cache.map<string>(10, (value) => value.length);
    cache.refresh();
    map.set('a', '12345');
    map.set('a', '12345');
    map.set('b', '12345');
    expect([map.get('a'), map.get('b')]).toEqual(['12345', '12345']);
    map.set('c', '1');
    expect([map.get('a'), map.get('b'), map.get('c')]).toEqual([undefined, undefined, '1']);
  });
});
