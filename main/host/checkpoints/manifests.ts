/**
 * How a checkpoint's manifest is kept in the store: in full (every entry), or as the change from
 * the manifest it is based on (the entries set or changed, and the paths removed). Both are JSON,
 * deflated.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { byPath, type CheckpointEntry } from '../machine/scanFolder.js';

/** What a stored manifest holds: every entry, or the change from its base. */
export type StoredManifest = { full: CheckpointEntry[] } | { set: CheckpointEntry[]; removed: string[] };

/** How the files of `after` differ from those of `before`, by path. */
export type FileChange = { path: string; change: 'added' | 'modified' | 'removed'; before?: CheckpointEntry; after?: CheckpointEntry };

/** Encodes a manifest for the store. */
export function encodeManifest(manifest: StoredManifest): Buffer {
  const value = 'full' in manifest ? manifest.full : { set: manifest.set, removed: manifest.removed };
  return deflateRawSync(Buffer.from(JSON.stringify(value)), { level: 1 });
}

/** Decodes a stored manifest (`delta` as its row says). */
export function decodeManifest(data: Buffer, delta: boolean): StoredManifest {
  const value: unknown = JSON.parse(inflateRawSync(data).toString('utf8'));
  if (delta) {
    const { set, removed } = value as { set: CheckpointEntry[]; removed: string[] };
    return { set, removed };
  }
  return { full: value as CheckpointEntry[] };
}

/** The change that turns `before` into `after` (an entry whose any field changed is set again). */
export function deltaOf(
  before: ReadonlyMap<string, CheckpointEntry>,
  after: readonly CheckpointEntry[],
): { set: CheckpointEntry[]; removed: string[] } {
  const set: CheckpointEntry[] = [];
  const present = new Set<string>();
  for (const entry of after) {
    present.add(entry.path);
    const was = before.get(entry.path);
    if (
      !was ||
      was.hash !== entry.hash ||
      was.size !== entry.size ||
      was.mode !== entry.mode ||
      was.mtimeMs !== entry.mtimeMs ||
      was.ctimeMs !== entry.ctimeMs ||
      was.ino !== entry.ino ||
      Boolean(was.link) !== Boolean(entry.link)
    ) {
      set.push(entry);
    }
  }
  const removed = [...before.keys()].filter((file) => !present.has(file));
  return { set, removed };
}

/** Applies a change to a manifest (in place). */
export function applyDelta(manifest: Map<string, CheckpointEntry>, delta: { set: CheckpointEntry[]; removed: string[] }): void {
  for (const file of delta.removed) {
    manifest.delete(file);
  }
  for (const entry of delta.set) {
    manifest.set(entry.path, entry);
  }
}

/** The entries a stored manifest names itself (all of a full one; those set by a change). */
export function namedEntries(manifest: StoredManifest): CheckpointEntry[] {
  return 'full' in manifest ? manifest.full : manifest.set;
}

/** How the files of `after` differ from those of `before`, by path. */
export function diffManifests(before: ReadonlyMap<string, CheckpointEntry>, after: ReadonlyMap<string, CheckpointEntry>): FileChange[] {
  const changes: FileChange[] = [];
  for (const [file, entry] of after) {
    const was = before.get(file);
    if (!was) {
      changes.push({ path: file, change: 'added', after: entry });
    } else if (was.hash !== entry.hash || Boolean(was.link) !== Boolean(entry.link)) {
      changes.push({ path: file, change: 'modified', before: was, after: entry });
    }
  }
  for (const [file, entry] of before) {
    if (!after.has(file)) {
      changes.push({ path: file, change: 'removed', before: entry });
    }
  }
  return changes.sort(byPath);
}
