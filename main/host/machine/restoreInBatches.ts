/**
 * A restore (or a new copy's files) on a machine behind a machine server: the contents go with the
 * requests, each once, in requests of at most {@link RESTORE_BATCH_BYTES} of contents; the
 * removals go in the first, and a write beneath a removal that failed there is not sent (it fails
 * as it would in one request).
 */
import type { RemoteMachine } from './RemoteMachine.js';
import type { Restore } from './restoreFolder.js';
import type { Populated } from './populateFolder.js';
import { byPath, type CheckpointEntry, type LeftOut } from './scanFolder.js';

/** The most contents (base64) one restore request carries. */
const RESTORE_BATCH_BYTES = 8 * 1024 * 1024;

/** Sends `restores` in batches; `fresh`: a folder just made that nothing has run in (`Machine.populate`, whose files made come back). */
export async function restoreInBatches(
  machine: Pick<RemoteMachine, 'request'>,
  folder: string,
  restores: readonly Restore[],
  content: (hash: string) => Buffer,
  options: { recordedReal?: string; fresh?: boolean },
): Promise<Populated> {
  const failed: LeftOut[] = [];
  const made: CheckpointEntry[] = [];
  let blocked: string[] = [];
  let batch: Restore[] = restores.filter((restore) => !restore.entry);
  let contents: Record<string, string> = {};
  let bytes = 0;
  const send = async (): Promise<void> => {
    const writes = batch.filter((restore) => {
      const under = restore.entry ? blocked.find((prefix) => restore.path.startsWith(`${prefix}/`)) : undefined;
      if (under !== undefined) {
        failed.push({ path: restore.path, reason: `not written: ${under} could not be removed` });
      }
      return under === undefined;
    });
    const answer = await machine.request('restore', {
      folder,
      restores: writes.map((restore) => (restore.entry ? { path: restore.path, entry: restore.entry } : { path: restore.path })),
      contents,
      ...options,
    });
    const removals = new Set(writes.filter((restore) => !restore.entry).map((restore) => restore.path));
    blocked = [...blocked, ...answer.failed.filter((left) => removals.has(left.path)).map((left) => left.path)];
    failed.push(...answer.failed);
    made.push(...(answer.made ?? []));
    batch = [];
    contents = {};
    bytes = 0;
  };
  for (const restore of restores) {
    if (!restore.entry) {
      continue;
    }
    const { hash } = restore.entry;
    if (contents[hash] === undefined) {
      let data: string | undefined;
      try {
        data = content(hash).toString('base64');
      } catch {
        // Not sent: that file alone fails there, with why.
      }
      if (data !== undefined && bytes > 0 && bytes + data.length > RESTORE_BATCH_BYTES) {
        await send();
      }
      if (data !== undefined) {
        contents[hash] = data;
        bytes += data.length;
      }
    }
    batch.push(restore);
  }
  if (batch.length > 0 || restores.length === 0) {
    await send();
  }
  return { failed: failed.sort(byPath), made };
}
