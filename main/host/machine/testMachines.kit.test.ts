/**
 * The machines host tests run on (not a test file itself: vitest leaves `*.kit.test.ts` out):
 * this computer, the built machine server as a local child (the loopback machine), and the
 * server over the system ssh to a real sshd run from the test's own folder, its key trusted up
 * front, and through `podman exec -i` into a real container (e2e/fixtures/container.ts). A test
 * runs its cases on each with `describe.each(testMachines(env))`; a machine that cannot be had
 * here comes with the reason, for the test to skip with.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import path from 'node:path';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { builtFile, ensureBuilt } from '../../../e2e/fixtures/ensureBuilt.js';
import { containerUnavailable, startContainer } from '../../../e2e/fixtures/container.js';
import { startSshd, sshdUnavailable } from '../../../e2e/fixtures/sshd.js';
import { CommandMachine } from './CommandMachine.js';
import { emptyTranscript, reduceAll } from '../../../app/transcript/index.js';
import { until } from '../../../e2e/fixtures/until.js';
import type { Host } from '../Host.js';
import type { Env } from '../process/env.js';
import { LocalMachine } from './LocalMachine.js';
import { LoopbackMachine } from './LoopbackMachine.js';
import type { Machine } from './Machine.js';
import type { RelayedMachine } from './RelayedMachine.js';
import { SshMachine } from './SshMachine.js';

/** One machine to run tests on: its name, how to make it (undefined for this computer's default), or why it cannot be had. */
export type TestMachine = { name: string; make: () => Promise<Machine | undefined>; unavailable?: string };

/** How each test machine hands folders the test made to the account it runs as (only over ssh as another user). */
const handers = new WeakMap<Machine, (...folders: string[]) => void>();

/**
 * Hands folders the test made (with what it put in them) to the account `machine` runs as, as a
 * person's folders on their server are theirs: over ssh that is an ordinary account, not the one
 * running the tests. Nothing to do for this computer and the loopback machine.
 */
export function handTo(machine: Machine | undefined, ...folders: string[]): void {
  if (machine) {
    handers.get(machine)?.(...folders);
  }
}

/** A fresh temporary folder that `machine`'s account may work in. */
export function tempDirOn(machine: Machine | undefined, prefix: string): string {
  const dir = tempDir(prefix);
  handTo(machine, dir);
  return dir;
}

/**
 * Git as the tests run it on a machine's folders, which over ssh belong to another account: git
 * refuses another user's repository unless told it is safe (on the command line, for this run alone).
 */
export const GIT_FOR_TESTS = ['-c', 'safe.directory=*', '-c', 'user.email=t@example.com', '-c', 'user.name=T'] as const;

/** The server at the end of a real ssh connection; disposing it ends the sshd too. */
export async function sshTestMachine(env: Env, name = 'sshd'): Promise<SshMachine> {
  ensureBuilt();
  const sshd = await startSshd(name);
  const stateDir = tempDir(`${name}-state`);
  writeFileSync(path.join(stateDir, 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostKey}\n`, { mode: 0o600 });
  const machine = await SshMachine.open({
    destination: sshd.alias,
    local: new LocalMachine(env),
    stateDir,
    configFile: sshd.configFile,
    knownHosts: [],
    bundle: builtFile('machine-server/server.mjs'),
  });
  handers.set(machine, sshd.hand);
  const dispose = machine.dispose.bind(machine);
  machine.dispose = async () => {
    try {
      await dispose();
    } finally {
      await sshd.stop();
    }
  };
  return machine;
}

/** A real container (podman exec -i), reached as a person adds one; disposing it removes the container too. */
export async function containerTestMachine(env: Env, name = 'machine'): Promise<CommandMachine> {
  ensureBuilt();
  const container = await startContainer(name);
  try {
    const machine = await CommandMachine.open({
      name: container.name,
      command: container.command,
      local: new LocalMachine(env),
      stateDir: tempDir(`${name}-container-state`),
      bundle: builtFile('machine-server/server.mjs'),
    });
    const dispose = machine.dispose.bind(machine);
    machine.dispose = async () => {
      try {
        await dispose();
      } finally {
        await container.stop();
      }
    };
    return machine;
  } catch (error) {
    await container.stop();
    throw error;
  }
}

/** The built server as a local child. */
export function loopbackTestMachine(env: Env): Promise<LoopbackMachine> {
  ensureBuilt();
  return LoopbackMachine.start({ env, script: builtFile('main/host/machine/serverMain.js') });
}

/** This computer (the host's default), the loopback machine, a machine over ssh, and a container. */
export function testMachines(env: Env): TestMachine[] {
  const noSshd = sshdUnavailable();
  const noContainer = containerUnavailable();
  return [
    { name: 'this computer', make: () => Promise.resolve(undefined) },
    { name: 'the loopback machine', make: () => loopbackTestMachine(env) },
    { name: 'a machine over ssh', make: () => sshTestMachine(env), ...(noSshd ? { unavailable: noSshd } : {}) },
    { name: 'a container (podman exec -i)', make: () => containerTestMachine(env), ...(noContainer ? { unavailable: noContainer } : {}) },
  ];
}

/** The test machines whose files are this computer's (a test makes and looks at them here): this computer, the loopback machine and ssh. */
export function machinesSharingFiles(env: Env): TestMachine[] {
  return testMachines(env).filter((machine) => !machine.name.startsWith('a container'));
}

/**
 * `body`'s tests once on each of `machines` (`<title> on <machine>`): the machine made before them
 * and disposed after (`machine()` is undefined for this computer); one that cannot be had here is
 * skipped with why.
 */
export function describeOnMachines(
  machines: readonly TestMachine[],
  title: string,
  body: (machine: () => Machine | undefined) => void,
): void {
  describe.each(machines)(`${title} on $name`, ({ make, unavailable }) => {
    if (unavailable) {
      it.skip(unavailable, () => undefined);
      return;
    }
    let machine: Machine | undefined;
    beforeAll(async () => {
      machine = await make();
    }, 120_000);
    afterAll(() => machine?.dispose());
    body(() => machine);
  });
}

/**
 * Kills the local process carrying `machine`'s channel (ssh, podman exec) while the fake agent's
 * slow reply streams in `conversationId`, waits until Baton has reconnected by itself and ten more
 * words have come, then stops the turn. Says what a test checks: the channel killed, the states the
 * machine went through, how long reconnecting took, and the reply's words.
 */
export async function dropMidReply(
  host: Host,
  machine: RelayedMachine,
  conversationId: string,
): Promise<{ channel: number; states: string[]; reconnectedIn: number; words: string[] }> {
  const text = (): string =>
    reduceAll(emptyTranscript(conversationId), host.store.readEvents(conversationId).events)
      .items.filter((item) => item.kind === 'agent')
      .map((item) => (item.kind === 'agent' ? item.text : ''))
      .at(-1) ?? '';
  const words = (): string[] => text().match(/word\d+ /g) ?? [];
  const states: string[] = [];
  const stopListening = machine.onState((state) => states.push(state.state));
  const reconnectsBefore = machine.reconnects;
  try {
    await host.turns.send(conversationId, 'slow, please');
    await until(() => /word9 /.test(text()), 30_000);
    const channel = machine.channelPid!;
    process.kill(channel, 'SIGKILL');
    const killedAt = performance.now();
    await until(() => machine.reconnects === reconnectsBefore + 1 && machine.state.state === 'connected', 30_000);
    const reconnectedIn = performance.now() - killedAt;
    const atReconnect = words().length;
    await until(() => words().length >= atReconnect + 10, 30_000);
    await host.turns.cancel(conversationId);
    await host.turns.idle();
    return { channel, states, reconnectedIn, words: words() };
  } finally {
    stopListening();
  }
}
