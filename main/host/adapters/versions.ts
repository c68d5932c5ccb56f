/** Version comparisons for quirks that name the releases they apply to. */

/** The numeric parts of a version ("0.101.0-beta.1" → [0, 101, 0]). */
function parts(version: string): number[] {
  return (version.split(/[-+]/)[0] ?? '').split('.').map((part) => Number.parseInt(part, 10) || 0);
}

/** -1, 0 or 1 as `a` is older than, the same as or newer than `b`. */
export function compareVersions(a: string, b: string): number {
  const [left, right] = [parts(a), parts(b)];
  for (let index = 0; index < Math.max(left.length, right.length); index += 1) {
    const difference = (left[index] ?? 0) - (right[index] ?? 0);
    if (difference !== 0) {
      return Math.sign(difference);
    }
  }
  return 0;
}

/** True when `version` is known and in [from, below). */
export function versionIn(version: string | undefined, from: string, below?: string): boolean {
  return version !== undefined && compareVersions(version, from) >= 0 && (below === undefined || compareVersions(version, below) < 0);
}
