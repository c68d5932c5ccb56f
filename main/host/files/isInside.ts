/** Path confinement shared by file access, terminals and injector folders. */
import path from 'node:path';

/** True when `inner` is `outer` or below it (both already resolved). */
export function isInside(outer: string, inner: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(path.sep) ? outer : outer + path.sep);
}
