/**
 * The files Baton writes for an agent's launch (a replacement prompt, a wrapper) are on the agent's
 * machine: written there before it starts, private to the account, gone when it ends. Run on this
 * computer, the loopback machine and over ssh (the test reads the files where they were written).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { fakeAgentScript } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { builtinAdapter } from '../adapters/builtinAdapter.js';
import { definedEnv } from '../Host.js';
import { LocalMachine } from '../machine/LocalMachine.js';
import { existsOn, LOCAL_MACHINE_ID, type Machine } from '../machine/Machine.js';
import { describeOnMachines, machinesSharingFiles, tempDirOn } from '../machine/testMachines.kit.test.js';
import { SESSION_FOLDERS, SessionFolders } from '../process/SessionFolder.js';
import { shellWord } from '../process/shellWord.js';
import { AgentProcesses } from './AgentProcesses.js';
import { leaseFor } from './leaseFor.js';

const env = definedEnv(process.env);
const adapter = builtinAdapter({ agentId: 'wrapped', displayName: 'Wrapped', command: 'wrapped', args: [], npmPackages: [] });

/** This computer as a host owns it: its data folder a fresh one. */
const hereWithData = (): LocalMachine => new LocalMachine(env, undefined, LOCAL_MACHINE_ID, 'This computer', tempDir('lease-data'));

// The loopback machine's data folder is in its HOME: a temporary one, not the account's own.
describeOnMachines(machinesSharingFiles({ ...env, HOME: tempDir('lease-home') }), 'files written for a launch', (machineOf) => {
  it('are written on the agent’s machine before it starts, private, and removed when it ends', async () => {
    const home = hereWithData();
    const machine: Machine = machineOf() ?? home;
    const pool = new AgentProcesses(() => {}, home);
    const work = tempDirOn(machineOf(), 'lease-work');
    const own = { command: 'wrapped', args: [], env: { ...machine.env }, cwd: work };
    let written: { note: string; wrapper: string } | undefined;
    try {
      const lease = await leaseFor({
        adapter,
        executable: 'wrapped',
        baseEnv: {},
        pool,
        machine,
        sessionFiles: new SessionFolders(home),
        binding: {
          launch: {
            own,
            digest: 'with-files',
            materialize: (folder) => {
              const note = folder().write('note.md', 'only for this agent');
              // The agent's command is itself one of the files: it starts only if the file is there.
              const wrapper = folder().write(
                'agent.sh',
                `#!/bin/sh\nexec ${shellWord(process.execPath)} ${shellWord(fakeAgentScript)} ${shellWord(work)}\n`,
                0o700,
              );
              written = { note, wrapper };
              return { ...own, command: wrapper };
            },
          },
        },
      });
      const { note, wrapper } = written!;
      const folder = path.dirname(note);
      expect(path.dirname(folder)).toBe(path.join(machine.dataDir, SESSION_FOLDERS));
      expect((await machine.stat(folder)).mode & 0o777).toBe(0o700);
      expect((await machine.stat(note)).mode & 0o777).toBe(0o600);
      expect((await machine.stat(wrapper)).mode & 0o777).toBe(0o700);
      expect((await machine.readFile(note, 1024)).data.toString()).toBe('only for this agent');
      expect(lease.agent.connection.initialized.agentInfo?.name).toBeTruthy();

      await lease.release();
      await pool.dispose();
      expect(await existsOn(machine, folder)).toBe(false);
    } finally {
      await pool.dispose();
    }
  }, 60_000);
});

describe('session folders on the host’s own machine', () => {
  it('are swept at start of what an earlier host left, before a new one is made', async () => {
    const home = hereWithData();
    const left = path.join(home.dataDir, SESSION_FOLDERS, 'session-left-behind');
    await home.writeConfined(home.dataDir, path.join(SESSION_FOLDERS, 'session-left-behind', 'system.md'), Buffer.from('old text'), 0o600);
    const folders = new SessionFolders(home);
    const fresh = folders.folderOn(home);
    fresh.write('system.md', 'new text');
    await fresh.make();
    expect(await existsOn(home, left)).toBe(false);
    expect((await home.readFile(path.join(fresh.path, 'system.md'), 64)).data.toString()).toBe('new text');
    await fresh.dispose();
    expect(await existsOn(home, fresh.path)).toBe(false);
  });

  it('that cannot be made fail the start with why, naming the agent and the machine, and start nothing', async () => {
    const file = path.join(tempDir('lease-not-a-folder'), 'a-file');
    await new LocalMachine(env).writeConfined(path.dirname(file), 'a-file', Buffer.from('not a folder'), 0o600);
    // Its data folder is under a file: the session folder cannot be made there.
    const home = new LocalMachine(env, undefined, LOCAL_MACHINE_ID, 'This computer', path.join(file, 'data'));
    const pool = new AgentProcesses(() => {}, home);
    const own = { command: process.execPath, args: [fakeAgentScript, tempDir('lease-unused')], env: { ...env }, cwd: tempDir('lease-cwd') };
    const leased = leaseFor({
      adapter,
      executable: process.execPath,
      baseEnv: {},
      pool,
      sessionFiles: new SessionFolders(home),
      binding: {
        launch: { own, digest: 'unwritable', materialize: (folder) => ({ ...own, env: { NOTE: folder().write('note.md', 'x') } }) },
      },
    });
    await expect(leased).rejects.toThrow(
      /^Wrapped's instructions could not be written on This computer \(.*\/a-file\/data\/session-files\/session-[^)]+\): ENOTDIR/,
    );
    expect(pool.table()).toEqual([]);
    await pool.dispose();
  });

  it('take plain file names only', () => {
    const fresh = new SessionFolders(hereWithData()).folderOn(hereWithData());
    expect(() => fresh.write('../escape.md', 'x')).toThrow('A session file\'s name must be a plain name, not "../escape.md".');
  });
});
