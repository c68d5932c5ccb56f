/**
 * Watches the data folder for `agents.json` being written, fixed, added or removed, so the agent
 * list (and the alert of a file that cannot be read) follows it without a reload.
 */
import path from 'node:path';
import { watchFolderHere } from '../machine/LocalMachine.js';

/** How long after the last change the list is read again (an editor writes a file in several steps). */
const SETTLE_MS = 150;

/** Calls `changed` once `agents.json` in `dataDir` settles after a change; returns the way to stop. */
export function watchAgentsFile(dataDir: string, changed: () => void, log: (message: string) => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let watcher: { close(): void } | undefined;
  try {
    watcher = watchFolderHere(
      dataDir,
      (event) => {
        // The database beside it changes all the time: only the file's own name counts (or none given).
        if (event.name !== null && path.basename(event.name) !== 'agents.json') {
          return;
        }
        clearTimeout(timer);
        timer = setTimeout(changed, SETTLE_MS);
        timer.unref?.();
      },
      (error) => log(`could not watch ${path.join(dataDir, 'agents.json')}: ${error.message}`),
    );
  } catch (error) {
    log(`could not watch ${path.join(dataDir, 'agents.json')}: ${String(error)}`);
  }
  return () => {
    clearTimeout(timer);
    watcher?.close();
  };
}
