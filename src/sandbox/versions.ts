// Optimistic concurrency: a change based on a version the client read.
import { DomainError } from './errors.js';

/**
 * A change based on a version the client read (`If-Match: "<version>"`, as the CLI sends it) is
 * refused as a conflict when the record has moved since, so a concurrent change is never
 * overwritten unseen. `*` matches any version; without If-Match the change applies to whatever
 * is current (as the reference API does). Cards are versioned by `__v`, OAuth applications by
 * `updatedAt`.
 */
export function assertIfMatch(what: string, version: string | number, ifMatch: string | string[] | undefined): void {
  if (ifMatch === undefined) return;
  const tags = (Array.isArray(ifMatch) ? ifMatch.join(',') : ifMatch).split(',')
    .map((tag) => tag.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1'));
  if (tags.includes('*') || tags.includes(String(version))) return;
  const asked = tags.filter(Boolean).join(', ').slice(0, 40) || '(empty)';
  throw new DomainError('conflict', `${what} has changed since it was read: If-Match asks for version ${asked}, it is at version ${version}`,
    [{ field: 'If-Match', message: `does not match the current version ${version}` }], { version });
}
