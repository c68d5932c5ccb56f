/** Path confinement shared by file access, terminals and injector folders. */
import path from 'node:path';

/** True when `inner` is `outer` or below it (both already resolved; `sep`: the separator of their machine's paths). */
export function isInside(outer: string, inner: string, sep: string = path.sep): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
}
