/**
 * A machine with no Node, against a real `sshd` on 127.0.0.1 whose sessions' PATH has the usual
 * tools but no `node`:
 * - it is blocked for having no Node, with the offer of the one Baton can upload (its version and size);
 * - once the person agrees, the package is fetched on this computer with npm, checked against its
 *   digest, uploaded and unpacked owner-only under `~/.baton/node/` there, and the machine server
 *   runs on it (its progress told on the way);
 * - the next opening finds that Node there (no upload, no fetch);
 * - a package whose digest is not the one Baton ships is refused, and nothing is uploaded.
 * The package here is packed from this computer's own Node (a stand-in for the registry's
 * `node-linux-<arch>`, fetched by the same `npm pack`), so that no test reaches the network.
 */
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MachineBlockedError } from '../../../app/errors.js';
import type { MachineInfo, PushEvent } from '../../../app/ipc/index.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { builtFile, ensureBuilt } from '../../../e2e/fixtures/ensureBuilt.js';
import { pathWithoutNode, testNodePackage, thisUname } from '../../../e2e/fixtures/nodePackage.js';
import { startSshd, sshdUnavailable, type Sshd } from '../../../e2e/fixtures/sshd.js';
import { Host } from '../Host.js';
import { definedEnv } from '../process/env.js';
import { LocalMachine } from './LocalMachine.js';
import { NODE_FOR_MACHINES, nodePackagesFromFile, type NodePackage, unpackNodeCommand } from './nodeForMachines.js';
import { SshMachine, type SshOptions } from './SshMachine.js';

const unavailable = sshdUnavailable();

async function blockOf(options: SshOptions): Promise<MachineBlockedError> {
  const error = await SshMachine.open(options).then(
    async (machine) => {
      await machine.dispose();
      return new Error('it opened');
    },
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MachineBlockedError);
  return error as MachineBlockedError;
}

describe.skipIf(unavailable !== undefined)('a machine with no Node', () => {
  let sshd: Sshd;
  let options: SshOptions;
  let pkg: NodePackage;
  const uname = thisUname();

  beforeAll(async () => {
    ensureBuilt();
    const PATH = pathWithoutNode();
    sshd = await startSshd('no-node', { PATH });
    sshd.hand(PATH);
    const stateDir = tempDir('no-node-state');
    writeFileSync(path.join(stateDir, 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostKey}\n`, { mode: 0o600 });
    pkg = testNodePackage();
    options = {
      destination: sshd.alias,
      local: new LocalMachine(definedEnv(process.env)),
      stateDir,
      configFile: sshd.configFile,
      knownHosts: [],
      bundle: builtFile('machine-server/server.mjs'),
      nodePackages: { [uname]: pkg },
    };
  }, 120_000);
  afterAll(async () => {
    await sshd?.stop();
  });
  /** The same package under a version of its own: a Node not uploaded there yet. */
  const wrongVersion = (): NodePackage => ({ ...pkg, version: '0.0.2' });

  it('is blocked with the offer, uploads Node once agreed, runs its server on it, and finds it there the next time', async () => {
    const blocked = await blockOf(options);
    expect(blocked.reason).toBe('no-node');
    expect(blocked.message).toContain('no Node on the PATH of a non-interactive ssh session');
    expect(blocked.message).toContain(`Baton can upload Node ${pkg.version} there`);
    expect(blocked.details?.nodeOffer).toEqual({ version: pkg.version, megabytes: Math.round(pkg.bytes / 1_000_000) });
    expect(existsSync(path.join(sshd.home, '.baton', 'node'))).toBe(false);

    const progress: string[] = [];
    const machine = await SshMachine.open({ ...options, uploadNode: true, onProgress: (what) => progress.push(what) });
    try {
      expect(progress).toEqual([
        expect.stringMatching(new RegExp(`^Fetching Node ${pkg.version} for baton-test from the npm registry`)),
        expect.stringMatching(new RegExp(`^Uploading Node ${pkg.version} to baton-test`)),
      ]);
      const uploaded = path.join(sshd.home, '.baton', 'node', pkg.version, 'bin', 'node');
      // Owner-only, the remote account's own, and what the machine server runs on.
      expect(statSync(path.dirname(path.dirname(uploaded))).mode & 0o777).toBe(0o700);
      expect(statSync(uploaded).mode & 0o077).toBe(0);
      expect(realpathSync(`/proc/${machine.serverPid}/exe`)).toBe(realpathSync(uploaded));
      expect((await machine.exec('id', ['-un'])).stdout.trim()).toBe(sshd.user);
      // What runs there finds that Node first on its PATH (agents from npm run \`node\`).
      const found = await machine.exec('sh', ['-c', 'command -v node'], { env: machine.env });
      expect(realpathSync(found.stdout.trim())).toBe(realpathSync(uploaded));
    } finally {
      await machine.dispose();
    }

    // The next time, without asking: that Node is found there, nothing is fetched or sent.
    const again: string[] = [];
    const reopened = await SshMachine.open({ ...options, onProgress: (what) => again.push(what) });
    await reopened.dispose();
    expect(again).toEqual([]);
  }, 120_000);

  it('through the host API: the machine shows the offer, and "upload" fetches, sends and connects, saying so on the way', async () => {
    const host = new Host({
      dataDir: tempDir('no-node-host'),
      homeDir: tempDir('no-node-host-home'),
      env: definedEnv(process.env),
      ssh: {
        configFile: sshd.configFile,
        knownHosts: [options.stateDir + '/known_hosts'],
        bundle: options.bundle!,
        nodePackages: { [uname]: wrongVersion() },
      },
    });
    const changes: MachineInfo[] = [];
    host.subscribe((event: PushEvent) => {
      if (event.name === 'machineChanged') {
        changes.push(event.payload.machine);
      }
    });
    try {
      const machineId = 'ssh:baton-test';
      const tested = await host.handle('connectMachine', { machineId });
      const blocked = tested.ok ? (tested.result as { machine: MachineInfo }).machine : undefined;
      expect(blocked).toMatchObject({ state: 'blocked', reason: 'no-node', nodeOffer: { version: '0.0.2' } });
      // Only a machine blocked for having no Node takes the upload.
      const refused = await host.handle('uploadNodeToMachine', { machineId: 'ssh:nowhere' });
      expect(refused.ok).toBe(false);

      const uploaded = await host.handle('uploadNodeToMachine', { machineId });
      expect(uploaded.ok ? (uploaded.result as { machine: MachineInfo }).machine.state : uploaded.error.message).toBe('connected');
      expect(changes.filter((change) => change.state === 'connecting').map((change) => change.message)).toEqual(
        expect.arrayContaining([expect.stringContaining('Fetching Node 0.0.2'), expect.stringContaining('Uploading Node 0.0.2')]),
      );
      expect(existsSync(path.join(sshd.home, '.baton', 'node', '0.0.2', 'bin', 'node'))).toBe(true);
    } finally {
      await host.dispose();
    }
  }, 120_000);

  it('refuses a package that is not the one whose digest Baton ships, and uploads nothing', async () => {
    const stateDir = tempDir('no-node-state-wrong');
    copyFileSync(path.join(options.stateDir, 'known_hosts'), path.join(stateDir, 'known_hosts'));
    const wrong = { ...pkg, version: '0.0.1', integrity: NODE_FOR_MACHINES['Linux x86_64']!.integrity };
    const refused = await blockOf({ ...options, stateDir, nodePackages: { [uname]: wrong }, uploadNode: true });
    expect(refused.reason).toBe('no-node');
    expect(refused.message).toContain('is not the package Baton ships the digest of');
    expect(existsSync(path.join(sshd.home, '.baton', 'node', '0.0.1'))).toBe(false);
  }, 60_000);
});

describe('the Node packages Baton offers', () => {
  it('ships one digest and size per platform, and reads a file of others, saying what is wrong with a bad one', () => {
    for (const pkg of Object.values(NODE_FOR_MACHINES)) {
      expect(pkg.spec).toMatch(/^node-linux-(x64|arm64)@\d+\.\d+\.\d+$/);
      expect(pkg.spec.endsWith(`@${pkg.version}`)).toBe(true);
      expect(pkg.integrity).toMatch(/^sha512-[A-Za-z0-9+/]{86}==$/);
      expect(pkg.bytes).toBeGreaterThan(10_000_000);
    }
    const dir = tempDir('node-packages-file');
    const good = path.join(dir, 'good.json');
    writeFileSync(good, JSON.stringify({ 'Linux x86_64': NODE_FOR_MACHINES['Linux x86_64'] }));
    expect(nodePackagesFromFile(good)).toEqual({ 'Linux x86_64': NODE_FOR_MACHINES['Linux x86_64'] });
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '{ not json');
    expect(() => nodePackagesFromFile(broken)).toThrow(`${broken} could not be read as JSON`);
    const wrong = path.join(dir, 'wrong.json');
    writeFileSync(wrong, JSON.stringify({ 'Linux x86_64': { ...NODE_FOR_MACHINES['Linux x86_64'], version: '22; rm -rf ~' } }));
    expect(() => nodePackagesFromFile(wrong)).toThrow(/does not name Node packages as Baton needs them \(Linux x86_64\.version/);
    expect(() => unpackNodeCommand('1.2.3 && evil')).toThrow('Not a Node version');
    expect(() => unpackNodeCommand('1.2.3', '$(evil)')).toThrow('Not an upload token');
  });

  it('unpacks twice at once into one home (machines sharing it): both succeed, one Node is in place, nothing half-made is left', async () => {
    // A package whose node is a script saying its version.
    const packed = tempDir('node-race-package');
    mkdirSync(path.join(packed, 'package', 'bin'), { recursive: true });
    writeFileSync(path.join(packed, 'package', 'bin', 'node'), '#!/bin/sh\necho v9.9.9\n', { mode: 0o755 });
    const tarball = execFileSync('tar', ['-czf', '-', '-C', packed, 'package']);
    const home = tempDir('node-race-home');
    const unpack = () =>
      new Promise<number | null>((resolve) => {
        const child = spawn('sh', ['-c', unpackNodeCommand('9.9.9')], {
          env: { PATH: process.env.PATH ?? '', HOME: home },
          stdio: ['pipe', 'ignore', 'inherit'],
        });
        child.on('exit', resolve);
        child.stdin.end(tarball);
      });
    expect(await Promise.all([unpack(), unpack(), unpack()])).toEqual([0, 0, 0]);
    expect(readdirSync(path.join(home, '.baton', 'node'))).toEqual(['9.9.9']);
    expect(readdirSync(path.join(home, '.baton', 'node', '9.9.9'))).toEqual(['bin']);
    expect(execFileSync(path.join(home, '.baton', 'node', '9.9.9', 'bin', 'node'), { encoding: 'utf8' })).toBe('v9.9.9\n');
  });
});
