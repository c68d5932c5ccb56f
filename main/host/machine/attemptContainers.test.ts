/**
 * The containers of attempts without an engine run: until Baton has started one here, a start
 * does not ask the person's engine for containers left behind; once it has, it does.
 */
import { describe, expect, it } from 'vitest';
import { AttemptContainers } from './AttemptContainers.js';
import type { Machine } from './Machine.js';

describe('looking for containers left behind at a start', () => {
  it('asks the engine only once Baton has started a container here', async () => {
    const asked: string[] = [];
    const local = {
      which: (command: string) => {
        asked.push(`which ${command}`);
        return Promise.resolve(`/usr/bin/${command}`);
      },
      exec: (command: string, args: readonly string[]) => {
        asked.push([command, ...args].join(' '));
        return Promise.resolve({ stdout: '', stderr: '', code: 0, signal: null });
      },
    } as unknown as Machine;
    let started = false;
    const containers = new AttemptContainers({
      local,
      engine: () => '',
      runOptions: () => '',
      everStarted: () => started,
      log: () => undefined,
    });
    expect(await containers.findLeftBehind()).toEqual([]);
    expect(asked).toEqual([]);
    started = true;
    expect(await containers.findLeftBehind()).toEqual([]);
    expect(asked).toEqual(['which podman', '/usr/bin/podman ps -a --filter label=baton.attempt --format {{.Names}}']);
  });
});
