/**
 * Machines through the host API, against a real sshd on 127.0.0.1 run from the test's own folder:
 * the `Host` of the ssh config is listed; its unknown host key is asked about (blocked, with the
 * fingerprint) and trusted only with that fingerprint; a conversation put on it runs its agent
 * there (under sshd, not under the host), takes its checkpoints there, and rewinds there, while a
 * conversation on this computer beside it runs here; "Ask several agents" there makes its worktrees
 * there (under the machine's own Baton folder) and keeps one; a branch in its own copy is made there
 * too. Added machines are checked as typed, listed, and removed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstructionPreview, MachineInfo, PushEvent } from '../../../app/ipc/index.js';
import { tempDir, testAgentsBin } from '../../../e2e/fixtures/agentEnv.js';
import { everythingServer } from '../../../e2e/fixtures/agentSetups.js';
import { builtFile, ensureBuilt } from '../../../e2e/fixtures/ensureBuilt.js';
import { filesContaining } from '../../../e2e/fixtures/filesContaining.js';
import { FAKE_AGENT_ID, fakeAgentId, fakeAgentLog, registerFakeAgents } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { ancestors, commandLines, parentOf } from '../../../e2e/fixtures/processTree.js';
import { startSshd, sshdUnavailable, type Sshd } from '../../../e2e/fixtures/sshd.js';
import { Host, definedEnv } from '../Host.js';
import { sendAndSettle } from '../conversations/settledTurns.kit.test.js';
import { fingerprintOf } from './SshMachine.js';
import { GIT_FOR_TESTS } from './testMachines.kit.test.js';

const unavailable = sshdUnavailable();

describe.skipIf(unavailable !== undefined)('machines through the host API', () => {
  let sshd: Sshd;
  let host: Host;
  let dataDir: string;
  const changes: MachineInfo[] = [];
  const machineId = 'ssh:baton-test';

  beforeAll(async () => {
    ensureBuilt();
    // Claude is on the PATH there (its adapter only: no model is asked in these tests).
    sshd = await startSshd('machines-api', { PATH: `${testAgentsBin}:${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin` });
    dataDir = tempDir('machines-api-data');
    registerFakeAgents(dataDir, [
      { name: 'Fake' },
      { name: 'Fake S', options: { sessions: true } },
      ...['A', 'B'].map((signature) => ({ name: `Fake ${signature}`, options: { env: { FAKE_SIGNATURE: signature } } })),
    ]);
    // The fake agents there log to this data folder: the remote's account writes there.
    sshd.hand(dataDir);
    host = new Host({
      dataDir,
      homeDir: tempDir('machines-api-home'),
      env: definedEnv(process.env),
      ssh: { configFile: sshd.configFile, knownHosts: [], bundle: builtFile('machine-server/server.mjs') },
    });
    host.subscribe((event: PushEvent) => {
      if (event.name === 'machineChanged') {
        changes.push(event.payload.machine);
      }
    });
  }, 60_000);

  afterAll(async () => {
    await host?.dispose();
    await sshd?.stop();
  });

  const call = async (method: string, params: unknown): Promise<unknown> => {
    const answer = await host.handle(method, params);
    if (!answer.ok) {
      throw new Error(`${method}: ${answer.error.message}`);
    }
    return answer.result;
  };

  it('lists the ssh config host, asks about its unknown key, and trusts only the key shown', async () => {
    const { machines } = (await call('listMachines', {})) as { machines: MachineInfo[] };
    expect(machines.map((machine) => [machine.name, machine.source, machine.state])).toEqual([
      ['This computer', 'this-computer', 'this-computer'],
      ['baton-test', 'ssh-config', 'not-connected'],
    ]);

    // Nothing of the person's known hosts is read: the key is unknown, and the machine is blocked on it.
    const { machine: blocked } = (await call('connectMachine', { machineId })) as { machine: MachineInfo };
    const fingerprint = fingerprintOf(sshd.hostKey.split(' ')[1]!);
    expect(blocked).toMatchObject({ state: 'blocked', reason: 'host-key-unknown', fingerprint });
    expect(blocked.message).toContain('baton-test');
    expect(changes.map((change) => change.state)).toEqual(['connecting', 'blocked']);

    // Sending a message there is refused with the reason; nothing is tried behind the person's back.
    const folder = tempDir('machines-api-blocked');
    const refused = await host.handle('newConversation', { agentId: FAKE_AGENT_ID, cwd: folder, machineId });
    expect(refused.ok ? '' : refused.error.code).toBe('MachineBlocked');

    // Another fingerprint than the one shown is not trusted.
    const wrong = await host.handle('trustMachineKey', { machineId, fingerprint: 'SHA256:not-the-one-shown' });
    expect(wrong.ok).toBe(false);
    const { machine: trusted } = (await call('trustMachineKey', { machineId, fingerprint })) as { machine: MachineInfo };
    expect(trusted).toMatchObject({ state: 'connected', reason: null, fingerprint: null });
    expect(changes.at(-1)?.state).toBe('connected');
  }, 60_000);

  it('runs a conversation on the machine there: its agent under sshd, its files written and rewound there', async () => {
    const work = tempDir('machines-api-work');
    writeFileSync(path.join(work, 'kept.txt'), 'kept\n');
    sshd.hand(work);
    const missing = await host.handle('newConversation', { agentId: FAKE_AGENT_ID, cwd: path.join(work, 'nope'), machineId });
    expect(missing.ok ? '' : missing.error.message).toContain('does not exist on baton-test');

    const { conversation } = (await call('newConversation', { agentId: FAKE_AGENT_ID, cwd: work, machineId })) as {
      conversation: { conversationId: string; machine: string };
    };
    expect(conversation.machine).toBe(machineId);
    const { conversationId } = conversation;
    const first = await sendAndSettle(host, conversationId, 'hello');

    // A conversation on this computer beside it runs here.
    const here = host.conversations.create(FAKE_AGENT_ID, tempDir('machines-api-here'));
    await sendAndSettle(host, here.conversationId, 'hello');
    const rows = host.pool.table();
    expect(rows).toHaveLength(2);
    const [there, local] = rows[0]!.key.startsWith(`${machineId}\t`) ? [rows[0]!, rows[1]!] : [rows[1]!, rows[0]!];
    expect(there.key.startsWith(`${machineId}\t`)).toBe(true);
    expect(ancestors(there.pid!).map((process) => process.name)).toContain('sshd');
    expect(parentOf(local.pid!)).toBe(process.pid);

    await sendAndSettle(host, conversationId, `write:${path.join(work, 'by-client.txt')}`);
    await sendAndSettle(host, conversationId, 'sh[echo from its shell > by-shell.txt]');
    expect(readFileSync(path.join(work, 'by-shell.txt'), 'utf8')).toBe('from its shell\n');
    const taken = host.store.readEvents(conversationId).events.filter((event) => event.type === 'checkpoint.taken');
    expect(taken.length).toBeGreaterThanOrEqual(6);

    const rewound = (await call('rewindConversation', { conversationId, turnId: first, keepFiles: false, overwrite: [] })) as {
      failed: unknown[];
    };
    expect(rewound.failed).toEqual([]);
    expect(existsSync(path.join(work, 'by-client.txt'))).toBe(false);
    expect(existsSync(path.join(work, 'by-shell.txt'))).toBe(false);
    expect(readFileSync(path.join(work, 'kept.txt'), 'utf8')).toBe('kept\n');
  }, 120_000);

  it("reads a folder's own instructions there, trusted there apart: this computer's trust of the same path does not reach it", async () => {
    // The sshd's account sees this computer's disk: the same path is a folder here and there.
    const work = tempDir('machines-api-folder');
    mkdirSync(path.join(work, '.baton'));
    writeFileSync(path.join(work, '.baton', 'instructions.md'), 'FOLDER-WORDS-3c5e\n');
    sshd.hand(work);
    const preview = async (params: Record<string, unknown>): Promise<InstructionPreview> =>
      (
        (await call('previewInstructions', {
          agentId: FAKE_AGENT_ID,
          person: { text: '', intent: 'append' },
          conversation: null,
          cwd: work,
          ...params,
        })) as { preview: InstructionPreview }
      ).preview;
    const sourcesOf = (conversationId: string): string[][] =>
      host.store
        .readEvents(conversationId)
        .events.flatMap((event) =>
          event.type === 'turn.started' ? [(event.payload.instructionSources ?? []).map((part) => part.source)] : [],
        );
    const here = await preview({});
    expect(here.project.state).toBe('untrusted');
    await call('setFolderTrust', { cwd: work, trusted: true, sha256: here.project.sha256 });

    // Here, the trusted folder's instructions go into the turn.
    const local = host.conversations.create(FAKE_AGENT_ID, work);
    await sendAndSettle(host, local.conversationId, 'hello');
    expect(sourcesOf(local.conversationId)).toEqual([['project']]);

    // There, the folder of the same path is another folder: read there, not trusted there, nothing of it goes in.
    const there = await preview({ machineId });
    expect(there.project).toMatchObject({ state: 'untrusted', folder: work, text: 'FOLDER-WORDS-3c5e\n' });
    const { conversation } = (await call('newConversation', { agentId: FAKE_AGENT_ID, cwd: work, machineId })) as {
      conversation: { conversationId: string };
    };
    await sendAndSettle(host, conversation.conversationId, 'hello');
    expect(sourcesOf(conversation.conversationId)).toEqual([[]]);

    // Trusted there, its next turn has it; no longer trusted here, this computer's conversation has it no more.
    await call('setFolderTrust', { cwd: work, machineId, trusted: true, sha256: there.project.sha256 });
    await call('setFolderTrust', { cwd: work, trusted: false });
    expect((await preview({ machineId })).project.state).toBe('trusted');
    expect((await preview({})).project.state).toBe('untrusted');
    await sendAndSettle(host, conversation.conversationId, 'again');
    await sendAndSettle(host, local.conversationId, 'again');
    expect(sourcesOf(conversation.conversationId)).toEqual([[], ['project']]);
    expect(sourcesOf(local.conversationId)).toEqual([['project'], []]);
  }, 120_000);

  it('asks two agents there: each in a worktree made there, under its own Baton folder; one kept; a branch in its own copy there too', async () => {
    const [A, B] = [fakeAgentId('Fake A'), fakeAgentId('Fake B')];
    const work = tempDir('machines-api-attempts');
    writeFileSync(path.join(work, 'shared.txt'), 'original\n');
    const gitIn = (...args: string[]): string => execFileSync('git', [...GIT_FOR_TESTS, ...args], { cwd: work, encoding: 'utf8' });
    gitIn('init', '-q', '-b', 'main');
    gitIn('add', '-A');
    gitIn('commit', '-q', '-m', 'start');
    // Uncommitted: each attempt starts from the folder as it is.
    writeFileSync(path.join(work, 'notes.txt'), 'my notes\n');
    sshd.hand(work);
    const { conversation } = (await call('newConversation', { agentId: A, cwd: work, machineId })) as {
      conversation: { conversationId: string };
    };
    const { conversationId } = conversation;
    const first = await sendAndSettle(host, conversationId, 'hello');
    const task = 'Please sign it: sh[printf "by %s\\n" "$FAKE_SIGNATURE" > shared.txt && touch "$FAKE_SIGNATURE.txt"]';
    const { attemptsId } = (await call('askAgents', { conversationId, text: task, agents: [{ agentId: A }, { agentId: B }] })) as {
      attemptsId: string;
    };
    await host.attempts.idle();
    await host.turns.idle();
    await host.turnCheckpoints.idle();
    host.committer.flush(conversationId);
    const started = host.store.readEvents(conversationId).events.find((event) => event.type === 'attempts.started');
    const attempts = started?.type === 'attempts.started' ? started.payload.attempts : [];
    const there = path.join(sshd.home, '.baton', 'attempts', attemptsId);
    expect(attempts.map((attempt) => [attempt.kind, attempt.machine, path.dirname(attempt.folder)])).toEqual([
      ['worktree', machineId, there],
      ['worktree', machineId, there],
    ]);
    const [ofA, ofB] = attempts as [(typeof attempts)[number], (typeof attempts)[number]];
    expect(readFileSync(path.join(ofB.folder, 'shared.txt'), 'utf8')).toBe('by B\n');
    expect(readFileSync(path.join(ofA.folder, 'notes.txt'), 'utf8')).toBe('my notes\n');
    // The attempts' agents ran there; only the bookkeeping is here.
    const theirs = host.pool.table().filter((row) => row.key.startsWith(`${machineId}\t`) && row.pid !== undefined);
    expect(theirs.length).toBeGreaterThanOrEqual(2);
    theirs.forEach((row) => expect(ancestors(row.pid!).map((process) => process.name)).toContain('sshd'));
    expect(readdirSync(path.join(dataDir, 'attempts', attemptsId))).toEqual(['owner.json']);

    const kept = (await call('keepAttempt', { conversationId, attemptsId, attemptId: ofB.attemptId, overwrite: [] })) as {
      failed: unknown[];
    };
    expect(kept.failed).toEqual([]);
    await host.attempts.idle();
    expect(readFileSync(path.join(work, 'shared.txt'), 'utf8')).toBe('by B\n');
    expect(existsSync(path.join(work, 'B.txt'))).toBe(true);
    expect(existsSync(there)).toBe(false);
    expect(existsSync(path.join(dataDir, 'attempts', attemptsId))).toBe(false);
    expect(gitIn('for-each-ref', '--format=%(refname)', 'refs/heads/baton/')).toBe('');
    expect(gitIn('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);

    // A branch in its own copy: a worktree there too, gone with the branch.
    const { conversation: branch } = (await call('branchConversation', {
      conversationId,
      turnId: first,
      restoreFiles: true,
      ownCopy: true,
    })) as { conversation: { conversationId: string; cwd: string; machine: string } };
    expect(branch.machine).toBe(machineId);
    expect(path.dirname(branch.cwd)).toBe(path.join(sshd.home, '.baton', 'branches'));
    expect(readFileSync(path.join(branch.cwd, 'notes.txt'), 'utf8')).toBe('my notes\n');
    await call('deleteConversation', { conversationId: branch.conversationId });
    await call('purgeConversation', { conversationId: branch.conversationId });
    expect(existsSync(branch.cwd)).toBe(false);
    expect(gitIn('for-each-ref', '--format=%(refname)', 'refs/heads/baton/')).toBe('');
  }, 120_000);

  it('refuses a server holding secrets for an agent there that would write them where others read them; the secret never goes there', async () => {
    const MARKER = 'marker-secret-5d1c9e';
    const server = host.toolbox.addServer({
      name: 'secretive',
      transport: 'stdio',
      command: everythingServer.command,
      args: everythingServer.args,
      env: [{ name: 'LOOKUP_TOKEN', value: MARKER, secret: true }],
    });
    const work = tempDir('machines-api-secret');
    sshd.hand(work);
    const { conversation } = (await call('newConversation', { agentId: 'claude', cwd: work, machineId, serverIds: [server.serverId] })) as {
      conversation: { conversationId: string };
    };
    const { conversationId } = conversation;
    await host.turns.send(conversationId, 'hello');
    await host.turns.idle();
    const ended = host.store.readEvents(conversationId).events.find((event) => event.type === 'turn.ended');
    expect(ended?.type === 'turn.ended' ? ended.payload.error : undefined).toMatchObject({
      code: 'UnsupportedInput',
      message: expect.stringContaining('the MCP server "secretive" on baton-test'),
    });
    // Not on a command line there, not in a file there, not in what was recorded here.
    expect(commandLines().filter(({ line }) => line.includes(MARKER))).toEqual([]);
    expect(filesContaining(sshd.home, MARKER)).toEqual([]);
    expect(JSON.stringify(host.store.readEnvelopes(conversationId))).not.toContain(MARKER);
  }, 60_000);

  it("resolves a toolbox server's ${userHome} and ${env:…} with the machine's own, and refuses one reached through Baton's bridge there", async () => {
    const homeful = host.toolbox.addServer({
      name: 'homeful',
      transport: 'stdio',
      command: everythingServer.command,
      args: [...everythingServer.args, '${userHome}/notes', '${env:HOME}'],
      // As imported from a VS Code mcp.json: its references resolved when a session is prepared.
      variables: 'vscode',
    });
    const work = tempDir('machines-api-toolbox');
    sshd.hand(work);
    const { conversation } = (await call('newConversation', {
      agentId: fakeAgentId('Fake S'),
      cwd: work,
      machineId,
      serverIds: [homeful.serverId],
    })) as { conversation: { conversationId: string } };
    await sendAndSettle(host, conversation.conversationId, 'hello');
    const opened = fakeAgentLog(dataDir).findLast((entry) => entry.method === 'session/new');
    expect(opened?.mcpServers).toEqual([
      expect.objectContaining({ name: 'homeful', args: [...everythingServer.args, `${sshd.home}/notes`, sshd.home] }),
    ]);

    const bridged = host.toolbox.addServer({ name: 'bridged', transport: 'http', url: 'http://127.0.0.1:9/mcp', bridge: true });
    const bridgedWork = tempDir('machines-api-bridged');
    sshd.hand(bridgedWork);
    const { conversation: other } = (await call('newConversation', {
      agentId: FAKE_AGENT_ID,
      cwd: bridgedWork,
      machineId,
      serverIds: [bridged.serverId],
    })) as { conversation: { conversationId: string } };
    await sendAndSettle(host, other.conversationId, 'hello');
    const ended = host.store.readEvents(other.conversationId).events.find((event) => event.type === 'turn.ended');
    expect(ended?.type === 'turn.ended' ? ended.payload.error : undefined).toMatchObject({
      code: 'UnsupportedInput',
      message: expect.stringContaining(`the MCP server "bridged" on baton-test`),
    });
  }, 60_000);

  it('adds a machine by user@host:port, refuses what ssh would read as an option, and removes it', async () => {
    const { machine } = (await call('addMachine', { destination: `someone@127.0.0.1:${sshd.port}` })) as { machine: MachineInfo };
    expect(machine).toMatchObject({ name: `someone@127.0.0.1:${sshd.port}`, source: 'added', state: 'not-connected' });
    const bad = await host.handle('addMachine', { destination: '-oProxyCommand=touch /tmp/x' });
    expect(bad.ok ? '' : bad.error.code).toBe('InvalidRequest');
    const { machines } = (await call('removeMachine', { machineId: machine.machineId })) as { machines: MachineInfo[] };
    expect(machines.map((entry) => entry.name)).toEqual(['This computer', 'baton-test']);
  });
});
