/**
 * A machine over the system `ssh`, against a real `sshd` on 127.0.0.1 run from the test's own
 * folder (the machine's own ssh files are never read or written):
 * - an unknown host key blocks the machine with its SHA256 fingerprint, after one connection, until
 *   the person trusts it; then the server is uploaded once and the machine works, its processes
 *   running under sshd;
 * - a changed host key blocks it with the reason and no retry loop;
 * - a refused log-in is an authentication block;
 * - no Node there is said plainly (and uploaded once agreed: nodeUpload.int.test.ts).
 * The whole machine contract runs over ssh as well (machine.int.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MachineBlockedError } from '../../../app/errors.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { builtFile, ensureBuilt } from '../../../e2e/fixtures/ensureBuilt.js';
import { ancestors } from '../../../e2e/fixtures/processTree.js';
import { startSshd, sshdUnavailable, type Sshd } from '../../../e2e/fixtures/sshd.js';
import { definedEnv } from '../process/env.js';
import { LocalMachine } from './LocalMachine.js';
import type { MachineProcess } from './Machine.js';
import { controlPath, destinationArgs, fingerprintOf, SshMachine, type SshOptions } from './SshMachine.js';

const unavailable = sshdUnavailable();
const local = new LocalMachine(definedEnv(process.env));

/** How many connections sshd has taken so far. */
function connections(sshd: Sshd): number {
  return (sshd.log().match(/Connection from 127\.0\.0\.1/g) ?? []).length;
}

async function blockOf(options: SshOptions): Promise<MachineBlockedError> {
  const error = await SshMachine.open(options).then(
    async (machine) => {
      await machine.dispose();
      return undefined;
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MachineBlockedError);
  return error as MachineBlockedError;
}

describe.skipIf(unavailable !== undefined)('a machine over ssh', () => {
  let sshd: Sshd;
  let options: SshOptions;
  beforeAll(async () => {
    ensureBuilt();
    sshd = await startSshd('ssh-machine');
    options = {
      destination: sshd.alias,
      local,
      stateDir: tempDir('ssh-state'),
      configFile: sshd.configFile,
      knownHosts: [],
      bundle: builtFile('machine-server/server.mjs'),
    };
  }, 120_000);
  afterAll(async () => {
    await sshd?.stop();
  });

  it('blocks an unknown host key with its fingerprint after one connection; once trusted, uploads the server once and runs processes under sshd', async () => {
    const before = connections(sshd);
    const blocked = await blockOf(options);
    expect(blocked.reason).toBe('host-key-unknown');
    const expected = fingerprintOf(sshd.hostKey.split(' ')[1]!);
    expect(blocked.details?.fingerprint).toBe(expected);
    expect(blocked.message).toContain(expected);
    expect(blocked.message).toContain('baton-test');
    // ssh-keygen agrees on the fingerprint.
    expect(execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', '-'], { input: sshd.hostKey, encoding: 'utf8' })).toContain(expected);
    expect(connections(sshd) - before).toBe(1);

    SshMachine.trustHostKey(options.stateDir, blocked);
    const machine = await SshMachine.open(options);
    try {
      expect(machine.home).toBe(sshd.home);
      const folders = readdirSync(path.join(sshd.home, '.baton', 'machine'));
      expect(folders).toHaveLength(1);
      const server = path.join(sshd.home, '.baton', 'machine', folders[0]!, 'server.mjs');
      // Uploaded for its owner alone.
      expect(statSync(server).mode & 0o777).toBe(0o600);
      expect(statSync(path.dirname(server)).mode & 0o777).toBe(0o700);
      const uploaded = statSync(server).mtimeMs;
      // The durable server listens on no port: on a socket for this user alone.
      // Its run folder is this machine's own (named after its id), even where machines share a home.
      const runs = readdirSync(path.dirname(server)).filter((name) => name.startsWith('run-'));
      expect(runs).toHaveLength(1);
      const run = path.join(path.dirname(server), runs[0]!);
      expect(statSync(run).mode & 0o777).toBe(0o700);
      expect(statSync(path.join(run, 'server.sock')).mode & 0o777).toBe(0o600);
      expect(statSync(path.join(run, 'server.sock')).isSocket()).toBe(true);
      // What runs there runs as the remote's account (an ordinary one, as on a person's server), and owns what it made.
      expect((await machine.exec('id', ['-un'])).stdout.trim()).toBe(sshd.user);
      expect((await machine.exec('id', ['-u'])).stdout.trim()).not.toBe('0');
      expect(statSync(server).uid).toBe(Number((await machine.exec('id', ['-u'])).stdout.trim()));

      const child: MachineProcess = machine.spawn({ command: 'sleep', args: ['30'], env: machine.env, cwd: sshd.home });
      await child.spawned();
      // Its parent is the machine server there, started under sshd's session: not a process of this side's.
      const above = ancestors(child.pid!);
      expect(above[0]).toEqual({ pid: machine.serverPid, name: 'node' });
      expect(above.map((process) => process.name)).toContain('sshd');
      await child.dispose();

      // A second host (its own ssh folder and connection) finds the server there and does not upload it again.
      const otherState = tempDir('ssh-state-other');
      copyFileSync(SshMachine.knownHostsFile(options.stateDir), SshMachine.knownHostsFile(otherState));
      const again = await SshMachine.open({ ...options, stateDir: otherState });
      expect((await again.exec('true', [])).code).toBe(0);
      await again.dispose();
      expect(statSync(server).mtimeMs).toBe(uploaded);
    } finally {
      await machine.dispose();
    }
  }, 120_000);

  it('blocks a changed host key with the reason, and does not retry', async () => {
    const state = tempDir('ssh-state-changed');
    writeFileSync(path.join(state, 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostKey}\n`, { mode: 0o600 });
    const trusted = { ...options, stateDir: state };
    const machine = await SshMachine.open(trusted);
    await machine.dispose();
    await sshd.changeHostKey();
    const before = connections(sshd);
    const blocked = await blockOf(trusted);
    expect(blocked.reason).toBe('host-key-changed');
    expect(blocked.message).toContain('host key has changed');
    expect(() => SshMachine.trustHostKey(state, blocked)).toThrow();
    expect(connections(sshd) - before).toBeLessThanOrEqual(2);
  }, 120_000);

  it('blocks a refused log-in as authentication, and says when Node is missing there', async () => {
    const state = tempDir('ssh-state-auth');
    writeFileSync(path.join(state, 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostKey}\n`, { mode: 0o600 });
    const otherKey = path.join(state, 'other_key');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', otherKey]);
    const config = path.join(state, 'ssh_config');
    writeFileSync(config, readFileSync(sshd.configFile, 'utf8').replace(/IdentityFile .+/, `IdentityFile ${otherKey}`));
    const refused = await blockOf({ ...options, stateDir: state, configFile: config });
    expect(refused.reason).toBe('authentication');
    expect(refused.message).toMatch(/authentication.*Permission denied/);

    // No node where it was said to be (the person's own key this time).
    const missing = await blockOf({ ...options, stateDir: state, remoteNode: '/nowhere/node' });
    expect(missing.reason).toBe('no-node');
    expect(missing.message).toContain('Node 18 or newer');
  }, 120_000);
});

describe('ssh arguments', () => {
  it('name the port of user@host:port, and keep the shared connection socket within a socket path length', () => {
    expect(destinationArgs('me@build.example:2222')).toEqual(['-p', '2222', 'me@build.example']);
    expect(destinationArgs('build-box')).toEqual(['build-box']);
    expect(destinationArgs('[::1]:22')).toEqual(['-p', '22', '::1']);
    const short = controlPath({ stateDir: '/home/me/.config/Baton/ssh', destination: 'build-box' });
    expect(path.dirname(short)).toBe('/home/me/.config/Baton/ssh');
    // A data folder deep down: the socket goes to a folder of this user's alone in the temp folder.
    const deep = controlPath({ stateDir: `/home/me/${'very-long-folder-name/'.repeat(4)}ssh`, destination: 'build-box' });
    expect(deep.length).toBeLessThanOrEqual(88);
    expect(statSync(path.dirname(deep)).mode & 0o777).toBe(0o700);
    // One socket per machine.
    expect(controlPath({ stateDir: '/s', destination: 'a' })).not.toBe(controlPath({ stateDir: '/s', destination: 'b' }));
  });
});

if (unavailable !== undefined) {
  describe('a machine over ssh', () => {
    it.skip(unavailable, () => undefined);
  });
}
