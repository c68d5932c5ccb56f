/**
 * A machine reached by a command, through the host API, against a real podman container (an image
 * debootstrapped from Debian, no network; see e2e/fixtures/container.ts):
 * - "Add container" refuses a command that asks for a terminal, a name taken, and a blank one, saying why;
 * - the container added by name and command is listed and connects; a conversation there runs its
 *   agent in the container (under conmon, not under the host), and a rewind removes what its shell wrote;
 * - the `podman exec` client carrying the channel is killed while a slow reply streams: Baton runs
 *   the command again by itself, the agent process is the same, and every chunk arrives once;
 * - removing the machine ends what ran there, and the container is the person's: it stays.
 * The command's words are read as a person types them (quotes, escapes).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineInfo } from '../../../app/ipc/index.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { containerUnavailable, podmanGlobals, startContainer, type TestContainer } from '../../../e2e/fixtures/container.js';
import { builtFile, ensureBuilt } from '../../../e2e/fixtures/ensureBuilt.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { ancestors } from '../../../e2e/fixtures/processTree.js';
import { until } from '../../../e2e/fixtures/until.js';
import { Host, definedEnv } from '../Host.js';
import { sendAndSettle } from '../conversations/settledTurns.kit.test.js';
import { dropMidReply } from './testMachines.kit.test.js';
import { commandWords } from './CommandMachine.js';
import type { RelayedMachine } from './RelayedMachine.js';

describe('the words of a command', () => {
  it('are read as typed, and a terminal is refused with why', () => {
    expect(commandWords('podman exec -i baton-dev')).toEqual(['podman', 'exec', '-i', 'baton-dev']);
    expect(commandWords(`  kubectl exec -i "my pod" -- `)).toEqual(['kubectl', 'exec', '-i', 'my pod', '--']);
    expect(commandWords(`wsl.exe -d 'Debian 12' --`)).toEqual(['wsl.exe', '-d', 'Debian 12', '--']);
    expect(commandWords('docker exec -i a\\ b')).toEqual(['docker', 'exec', '-i', 'a b']);
    for (const terminal of ['podman exec -it dev', 'docker exec -t -i dev', 'podman exec --tty -i dev', 'docker exec -ti dev']) {
      expect(() => commandWords(terminal)).toThrow('asks for a terminal (-t)');
    }
    expect(() => commandWords('   ')).toThrow('A command that reaches the machine is needed');
    expect(() => commandWords('podman exec -i "dev')).toThrow('is not closed');
  });
});

const unavailable = containerUnavailable();

describe.skipIf(unavailable !== undefined)('a container machine through the host API', () => {
  let container: TestContainer;
  let host: Host;
  let dataDir: string;
  const machineId = 'cmd:baton-dev';

  beforeAll(async () => {
    ensureBuilt();
    container = await startContainer('api');
    dataDir = tempDir('container-api-data');
    registerFakeAgent(dataDir);
    host = new Host({
      dataDir,
      homeDir: tempDir('container-api-home'),
      env: definedEnv(process.env),
      ssh: { configFile: path.join(dataDir, 'no-ssh-config'), knownHosts: [], bundle: builtFile('machine-server/server.mjs') },
    });
  }, 300_000);

  afterAll(async () => {
    await host?.dispose();
    await container?.stop();
  });

  const call = async (method: string, params: unknown): Promise<unknown> => {
    const answer = await host.handle(method, params);
    if (!answer.ok) {
      throw new Error(`${method}: ${answer.error.message}`);
    }
    return answer.result;
  };

  it('is added by name and command (never one that asks for a terminal), connects, and runs a conversation in the container', async () => {
    const terminal = await host.handle('addCommandMachine', { name: 'dev', command: container.command.replace(' -i ', ' -it ') });
    expect(terminal.ok ? '' : terminal.error.message).toContain('asks for a terminal (-t)');
    const blank = await host.handle('addCommandMachine', { name: ' ', command: container.command });
    expect(blank.ok ? '' : blank.error.message).toContain('needs a name');

    const { machine } = (await call('addCommandMachine', { name: 'baton-dev', command: container.command })) as { machine: MachineInfo };
    expect(machine).toMatchObject({
      machineId,
      name: 'baton-dev',
      source: 'command',
      destination: container.command,
      state: 'not-connected',
    });
    const { machines } = (await call('listMachines', {})) as { machines: MachineInfo[] };
    expect(machines.map((each) => each.name)).toEqual(['This computer', 'baton-dev']);
    for (const name of ['This computer', 'baton-dev']) {
      const taken = await host.handle('addCommandMachine', { name, command: container.command });
      expect(taken.ok ? '' : taken.error.message).toContain(`already a machine called "${name}"`);
    }

    const { machine: connected } = (await call('connectMachine', { machineId })) as { machine: MachineInfo };
    expect(connected.state).toBe('connected');

    const work = tempDir('container-api-work');
    writeFileSync(path.join(work, 'kept.txt'), 'kept\n');
    const { conversation } = (await call('newConversation', { agentId: FAKE_AGENT_ID, cwd: work, machineId })) as {
      conversation: { conversationId: string; machine: string };
    };
    expect(conversation.machine).toBe(machineId);
    const first = await sendAndSettle(host, conversation.conversationId, 'hello');
    // The agent runs in the container: under its conmon, not under this host.
    const row = host.pool.table().find((entry) => entry.key.startsWith(`${machineId}\t`));
    expect(ancestors(row!.pid!).map((process) => process.name)).toContain('conmon');
    expect(ancestors(row!.pid!).map((process) => process.pid)).not.toContain(process.pid);
    const inContainer = execFileSync('podman', [...podmanGlobals(), 'top', container.name, 'pid', 'args'], { encoding: 'utf8' });
    expect(inContainer).toContain('fakeAgent.mjs');

    await sendAndSettle(host, conversation.conversationId, 'sh[echo from the container > by-shell.txt]');
    expect(readFileSync(path.join(work, 'by-shell.txt'), 'utf8')).toBe('from the container\n');
    const rewound = (await call('rewindConversation', {
      conversationId: conversation.conversationId,
      turnId: first,
      keepFiles: false,
      overwrite: [],
    })) as { failed: unknown[] };
    expect(rewound.failed).toEqual([]);
    expect(existsSync(path.join(work, 'by-shell.txt'))).toBe(false);
    expect(readFileSync(path.join(work, 'kept.txt'), 'utf8')).toBe('kept\n');
  }, 120_000);

  it('outlives a killed podman exec client: the same agent, reconnected by itself, every chunk once', async () => {
    const machine = host.machines.ready(machineId) as RelayedMachine;
    const { conversation } = (await call('newConversation', {
      agentId: FAKE_AGENT_ID,
      cwd: tempDir('container-drop-work'),
      machineId,
    })) as {
      conversation: { conversationId: string };
    };
    const { conversationId } = conversation;
    await sendAndSettle(host, conversationId, 'hello');
    const agentPid = host.pool.table().find((entry) => entry.key.startsWith(`${machineId}\t`) && entry.pid !== undefined)?.pid;
    const { channel, words } = await dropMidReply(host, machine, conversationId);

    expect(machine.channelPid).not.toBe(channel);
    expect(host.pool.table().map((entry) => entry.pid)).toContain(agentPid);
    expect(words.length).toBeGreaterThanOrEqual(20);
    expect(words).toEqual(words.map((_word, index) => `word${index} `));
  }, 120_000);

  it('removed, ends what ran there; the container itself is the person’s and stays', async () => {
    const server = (host.machines.ready(machineId) as RelayedMachine).serverPid;
    await call('removeMachine', { machineId });
    await until(() => {
      try {
        process.kill(server, 0);
        return false;
      } catch {
        return true;
      }
    }, 10_000);
    const { machines } = (await call('listMachines', {})) as { machines: MachineInfo[] };
    expect(machines.map((each) => each.name)).toEqual(['This computer']);
    const running = execFileSync('podman', [...podmanGlobals(), 'ps', '--filter', `name=${container.name}`, '--format', '{{.Names}}'], {
      encoding: 'utf8',
    });
    expect(running.trim()).toBe(container.name);
  }, 60_000);
});

if (unavailable !== undefined) {
  describe('a container machine through the host API', () => {
    it.skip(unavailable, () => undefined);
  });
}
