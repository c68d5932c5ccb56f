/** The data folder's modes on real files: a fresh one is owner-only, an older looser one is tightened on start and said once in the log. */
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { Host } from '../Host.js';
import { RotatingLog } from '../log/RotatingLog.js';

/** Every folder and file below `root` with its permission bits, except installed agents. */
function modes(root: string): Array<{ file: string; mode: number; folder: boolean }> {
  const found: Array<{ file: string; mode: number; folder: boolean }> = [{ file: root, mode: statSync(root).mode & 0o777, folder: true }];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const file = path.join(root, entry.name);
    if (entry.isDirectory()) {
      found.push(...modes(file));
    } else if (entry.isFile()) {
      found.push({ file, mode: statSync(file).mode & 0o777, folder: false });
    }
  }
  return found;
}

async function withHost(dataDir: string, log: string[] = []): Promise<void> {
  const host = new Host({ dataDir, env: { PATH: '' }, log: (line) => log.push(line) });
  try {
    // A write, so the WAL and its shared-memory file exist too.
    await host.handle('newConversation', { agentId: 'claude', cwd: tempDir('private-cwd') });
    new RotatingLog(dataDir).write('hello');
  } finally {
    await host.dispose();
  }
}

describe('the data folder', () => {
  it('is created 0700 with 0600 files, the database, its WAL and SHM, the lock and the log included', async () => {
    const previous = process.umask(0o022);
    try {
      const dataDir = path.join(tempDir('private'), 'data');
      const host = new Host({ dataDir, env: { PATH: '' } });
      try {
        await host.handle('newConversation', { agentId: 'claude', cwd: tempDir('private-cwd') });
        new RotatingLog(dataDir).write('hello');
        const found = modes(dataDir);
        const names = found.map((entry) => path.basename(entry.file));
        expect(names).toEqual(
          expect.arrayContaining(['baton.sqlite', 'baton.sqlite-wal', 'baton.sqlite-shm', 'baton.lock.sqlite', 'baton.lock', 'baton.log']),
        );
        for (const entry of found) {
          expect({ file: entry.file, mode: entry.mode.toString(8) }).toEqual({ file: entry.file, mode: entry.folder ? '700' : '600' });
        }
      } finally {
        await host.dispose();
      }
    } finally {
      process.umask(previous);
    }
  });

  it('is tightened on start when an older Baton left it readable by others, and says so once in the log', async () => {
    const dataDir = path.join(tempDir('loose'), 'data');
    await withHost(dataDir);
    chmodSync(dataDir, 0o755);
    for (const entry of modes(dataDir)) {
      chmodSync(entry.file, entry.folder ? 0o755 : 0o644);
    }
    mkdirSync(path.join(dataDir, 'logs'), { recursive: true });
    writeFileSync(path.join(dataDir, 'logs', 'baton.1.log'), 'old\n', { mode: 0o644 });
    const log: string[] = [];
    await withHost(dataDir, log);
    for (const entry of modes(dataDir)) {
      expect(entry.mode & 0o077).toBe(0);
    }
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const said = log.filter((line) => line.includes('made owner-only'));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain(path.join(dataDir, 'baton.sqlite'));
    // Once tightened, nothing more to say.
    const again: string[] = [];
    await withHost(dataDir, again);
    expect(again.filter((line) => line.includes('made owner-only'))).toHaveLength(0);
  });
});
