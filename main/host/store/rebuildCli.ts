/**
 * `npm run store:rebuild -- [--data-dir DIR]`: rebuilds the catalog, turn and search projections
 * from the event log. Takes the data folder's lock, so it refuses while Baton runs.
 */
import os from 'node:os';
import path from 'node:path';
import { DataDirLock } from './DataDirLock.js';
import { EventStore } from './EventStore.js';

function dataDirFrom(argv: readonly string[]): string {
  const index = argv.findIndex((arg) => arg === '--data-dir' || arg.startsWith('--data-dir='));
  if (index < 0) {
    return process.env.BATON_DATA_DIR || path.join(os.homedir(), '.baton');
  }
  const arg = argv[index]!;
  const value = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[index + 1];
  if (!value) {
    throw new Error('--data-dir needs a folder.');
  }
  return path.resolve(value);
}

try {
  const dataDir = dataDirFrom(process.argv.slice(2));
  const lock = DataDirLock.acquire(dataDir);
  try {
    const store = new EventStore(dataDir);
    const started = performance.now();
    const { conversations, events } = store.rebuildProjections();
    store.close();
    console.log(
      `Rebuilt the history of ${conversations} conversations from ${events} events in ${Math.round(performance.now() - started)} ms (${dataDir}).`,
    );
  } finally {
    lock.release();
  }
} catch (error) {
  console.error(`Could not rebuild: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
