/**
 * A machine over ssh (`npm run bench -- ssh`), against a real sshd on 127.0.0.1 run from the
 * benchmark's own folder, each figure a ratio against this computer in the same run, idle and then
 * busy (one CPU-bound process beside it):
 * - a turn: Send to the turn's end, with the agent already running: Claude Code's (from npm,
 *   against the model stub: a real agent's turn, the goal's measure), and the fake agent's (about
 *   10 ms: the channel's own cost laid bare);
 * - a checkpoint after 10 files changed in a folder of 2,000, the folder watched (as while a
 *   session is live), the scan running where the files are;
 * - the ssh client carrying the channel killed while a reply streams, to connected again (goal
 *   < 3 s), the reply's words each in the transcript once;
 * - the first connection to a machine with nothing installed: from `SshMachine.open` (the server
 *   uploaded) to the agent's first reply, which includes its `initialize` answer (goal < 5 s on loopback).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../e2e/fixtures/agentEnv.js';
import { agentHome, agentUnavailable } from '../e2e/fixtures/agentSetups.js';
import { startModelStub, type ModelStub } from '../e2e/fixtures/modelStub.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../e2e/fixtures/fakeAgentConfig.js';
import { startSshd, sshdUnavailable, type Sshd } from '../e2e/fixtures/sshd.js';
import { CheckpointStore } from '../main/host/checkpoints/CheckpointStore.js';
import { Host, definedEnv } from '../main/host/Host.js';
import { LocalMachine } from '../main/host/machine/LocalMachine.js';
import type { Machine } from '../main/host/machine/Machine.js';
import { SshMachine } from '../main/host/machine/SshMachine.js';
import { atLoad, LOADS, median, report } from './util.js';

const TURNS = 10;
const CHECKPOINTS = 10;
const env = definedEnv(process.env);

async function openOver(sshd: Sshd, stateDir: string): Promise<SshMachine> {
  return SshMachine.open({ destination: sshd.alias, local: new LocalMachine(env), stateDir, configFile: sshd.configFile, knownHosts: [] });
}

/** Hands folders made here to the remote's account (an ordinary one when run as root); set once the sshd runs. */
let handOver: (...folders: string[]) => void = () => undefined;

/** A new temp folder that `machine`'s account may work in. */
function folderFor(machine: Machine, prefix: string): string {
  const dir = tempDir(prefix);
  if (machine instanceof SshMachine) {
    handOver(dir);
  }
  return dir;
}

/** Trusts the sshd's key up front (the person agreed once). */
function trusted(sshd: Sshd): string {
  const stateDir = tempDir('bench-ssh-state');
  writeFileSync(path.join(stateDir, 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostKey}\n`, { mode: 0o600 });
  return stateDir;
}

/** A host on `machine` with the fake agent, and a conversation with it in a new folder. */
function fakeAgentHost(machine: Machine): { host: Host; conversationId: string } {
  const dataDir = tempDir('bench-ssh-data');
  registerFakeAgent(dataDir);
  // The fake agent there logs to the data folder.
  if (machine instanceof SshMachine) {
    handOver(dataDir);
  }
  const host = new Host({ dataDir, homeDir: tempDir('bench-ssh-home'), env, machine });
  return { host, conversationId: host.conversations.create(FAKE_AGENT_ID, folderFor(machine, 'bench-ssh-work')).conversationId };
}

/** A host on `machine` with Claude Code against the model stub, and a conversation with it in a new folder. */
function claudeHost(machine: Machine, stub: ModelStub): { host: Host; conversationId: string } {
  const host = new Host({
    dataDir: tempDir('bench-ssh-data'),
    homeDir: tempDir('bench-ssh-home'),
    env: agentHome('claude', stub.url),
    machine,
  });
  return { host, conversationId: host.conversations.create('claude', folderFor(machine, 'bench-ssh-work')).conversationId };
}

/** Milliseconds of each of `TURNS` turns on `machine` (after one to start the agent). */
async function turns(machine: Machine, made: { host: Host; conversationId: string } = fakeAgentHost(machine)): Promise<number[]> {
  const { host, conversationId } = made;
  try {
    await host.turns.send(conversationId, 'hello');
    await host.turns.idle();
    const times: number[] = [];
    for (let turn = 0; turn < TURNS; turn += 1) {
      const started = performance.now();
      await host.turns.send(conversationId, `hello ${turn}`);
      await host.turns.idle();
      times.push(performance.now() - started);
    }
    return times;
  } finally {
    await host.dispose();
  }
}

/** Milliseconds of each checkpoint after 10 files changed, the folder watched, on `machine`. */
async function checkpoints(machine: Machine): Promise<number[]> {
  const folder = tempDir('bench-ssh-folder');
  for (let file = 0; file < 2_000; file += 1) {
    const dir = path.join(folder, `d${file % 40}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `f${file}.txt`), `file ${file}\n`.repeat(20));
  }
  if (machine instanceof SshMachine) {
    handOver(folder);
  }
  const store = CheckpointStore.open(tempDir('bench-ssh-store'), { machine });
  const unwatch = store.watch(folder);
  try {
    await store.take(folder);
    const times: number[] = [];
    for (let round = 0; round < CHECKPOINTS; round += 1) {
      for (let change = 0; change < 10; change += 1) {
        const file = (round * 10 + change) * 13;
        writeFileSync(path.join(folder, `d${file % 40}`, `f${file}.txt`), `changed in round ${round}\n`);
      }
      // The watch hears the writes (as it does between an agent's tool call and the turn's end).
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = performance.now();
      await store.take(folder);
      times.push(performance.now() - started);
    }
    return times;
  } finally {
    unwatch();
    store.close();
  }
}

/** From the ssh client carrying the channel killed mid-reply to connected again, with the reply's words each once. */
async function reconnect(sshd: Sshd): Promise<number[]> {
  const machine = await openOver(sshd, trusted(sshd));
  const { host, conversationId } = fakeAgentHost(machine);
  const times: number[] = [];
  try {
    await host.turns.send(conversationId, 'slow, please');
    for (let round = 0; round < 5; round += 1) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const before = machine.reconnects;
      const started = performance.now();
      process.kill(machine.channelPid!, 'SIGKILL');
      while (!(machine.reconnects === before + 1 && machine.state.state === 'connected')) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      times.push(performance.now() - started);
    }
    await host.turns.cancel(conversationId);
    await host.turns.idle();
    const events = host.store.readEvents(conversationId).events;
    const text = events.flatMap((event) => (event.type === 'message.chunk' ? [(event.payload as { text: string }).text] : [])).join('');
    const words = text.match(/word\d+ /g) ?? [];
    if (words.some((word, index) => word !== `word${index} `)) {
      throw new Error(`the reply lost or repeated words across the drops: ${words.join('')}`);
    }
    return times;
  } finally {
    await host.dispose();
    await machine.dispose();
  }
}

/** From nothing on the remote to the fake agent's first reply through it (its `initialize` answer, a session, a turn). */
async function firstConnection(sshd: Sshd): Promise<number> {
  const started = performance.now();
  const machine = await openOver(sshd, trusted(sshd));
  try {
    const { host, conversationId } = fakeAgentHost(machine);
    try {
      await host.turns.send(conversationId, 'hello');
      await host.turns.idle();
      return performance.now() - started;
    } finally {
      await host.dispose();
    }
  } finally {
    await machine.dispose();
  }
}

async function pass(sshd: Sshd, label: string, stub: ModelStub | undefined): Promise<void> {
  const here = new LocalMachine(env);
  const there = await openOver(sshd, trusted(sshd));
  try {
    const ratio = (value: number[], baseline: number[]): string =>
      `${median(value).toFixed(1)} ms  ratio ${(median(value) / median(baseline)).toFixed(2)}x`;
    if (stub) {
      const localClaude = await turns(here, claudeHost(here, stub));
      const sshClaude = await turns(there, claudeHost(there, stub));
      report(`${label}: a turn of Claude Code on this computer (baseline)`, `${median(localClaude).toFixed(1)} ms`);
      report(`${label}: the same turn on the machine over ssh (goal <= 1.10x)`, ratio(sshClaude, localClaude));
    }
    const localTurns = await turns(here);
    const sshTurns = await turns(there);
    report(`${label}: a turn of the fake agent on this computer (baseline)`, `${median(localTurns).toFixed(1)} ms`);
    report(`${label}: the same turn on the machine over ssh (the channel's own cost)`, ratio(sshTurns, localTurns));
    const localCheckpoints = await checkpoints(here);
    const sshCheckpoints = await checkpoints(there);
    report(`${label}: a checkpoint after 10 changes of 2,000 files, this computer (baseline)`, `${median(localCheckpoints).toFixed(1)} ms`);
    report(`${label}: the same over ssh (goal <= 2x)`, ratio(sshCheckpoints, localCheckpoints));
    report(
      `${label}: the ssh client killed mid-reply → connected again, every word once (goal < 3000 ms)`,
      `${median(await reconnect(sshd)).toFixed(0)} ms`,
    );
  } finally {
    await there.dispose();
  }
}

export async function sshBenchmark(): Promise<void> {
  const unavailable = sshdUnavailable();
  if (unavailable) {
    console.log(`\nssh: ${unavailable}`);
    return;
  }
  console.log(`\nssh: a machine over ssh (a real sshd on 127.0.0.1) against this computer, median of ${TURNS}`);
  const sshd = await startSshd('bench-sshd');
  handOver = sshd.hand;
  const noClaude = agentUnavailable('claude');
  if (noClaude) {
    console.log(`ssh: Claude Code's turn is left out (${noClaude})`);
  }
  const stub = noClaude ? undefined : await startModelStub();
  try {
    report(
      'first connection, nothing installed there: open → the first reply (goal < 5000 ms)',
      `${(await firstConnection(sshd)).toFixed(0)} ms`,
    );
    for (const load of LOADS) {
      await atLoad(load, () => pass(sshd, load, stub));
    }
  } finally {
    await stub?.close();
    await sshd.stop();
  }
}
