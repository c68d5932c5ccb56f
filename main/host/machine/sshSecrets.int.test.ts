/**
 * A secret of a toolbox server, for an agent that runs its servers itself on an SSH machine (Codex,
 * from npm, against the model stub), with a real sshd on 127.0.0.1: the server runs there, under
 * sshd, with the secret in its own environment; the secret is on no command line, in no file under
 * the remote's home (the agent's own session files and Baton's machine server included), in
 * neither side's log, and in nothing Baton recorded.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineInfo } from '../../../app/ipc/index.js';
import { agentHome, agentUnavailable, everythingServer, withSkipReason } from '../../../e2e/fixtures/agentSetups.js';
import { tempDir, testAgentsBin } from '../../../e2e/fixtures/agentEnv.js';
import { builtFile, ensureBuilt } from '../../../e2e/fixtures/ensureBuilt.js';
import { filesContaining } from '../../../e2e/fixtures/filesContaining.js';
import { startModelStub, type ModelStub } from '../../../e2e/fixtures/modelStub.js';
import { commandLines, processesWith } from '../../../e2e/fixtures/processTree.js';
import { startSshd, sshdUnavailable, type Sshd } from '../../../e2e/fixtures/sshd.js';
import { Host, definedEnv } from '../Host.js';
import { sendAllowing } from '../conversations/settledTurns.kit.test.js';

const MARKER = 'marker-secret-codex-7f3a1b';
const skip = sshdUnavailable() ?? agentUnavailable('codex');

describe('a secret of a toolbox server, with Codex on an SSH machine', () => {
  let stub: ModelStub;
  let sshd: Sshd;
  let host: Host;
  const logged: string[] = [];
  const machineId = 'ssh:baton-test';

  beforeAll(async () => {
    if (skip) {
      return;
    }
    ensureBuilt();
    stub = await startModelStub();
    // Codex is on the PATH there, with its configuration in the remote's own home (~/.codex).
    sshd = await startSshd('ssh-secrets', {
      STUB_API_KEY: 'stub-key',
      PATH: `${testAgentsBin}:${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    });
    const configured = agentHome('codex', stub.url);
    mkdirSync(path.join(sshd.home, '.codex'), { recursive: true });
    writeFileSync(path.join(sshd.home, '.codex', 'config.toml'), readFileSync(path.join(configured.CODEX_HOME!, 'config.toml')));
    sshd.hand(sshd.home);
    host = new Host({
      dataDir: tempDir('ssh-secrets-data'),
      homeDir: tempDir('ssh-secrets-home'),
      env: definedEnv(process.env),
      ssh: { configFile: sshd.configFile, knownHosts: [], bundle: builtFile('machine-server/server.mjs') },
      log: (message) => logged.push(message),
    });
    const asked = await host.handle('connectMachine', { machineId });
    const fingerprint = asked.ok ? (asked.result as { machine: MachineInfo }).machine.fingerprint : null;
    const trusted = await host.handle('trustMachineKey', { machineId, fingerprint });
    expect(trusted.ok).toBe(true);
  }, 120_000);

  afterAll(async () => {
    await host?.dispose();
    await sshd?.stop();
    await stub?.close();
  });

  it.skipIf(skip)(
    withSkipReason('runs the server there with the secret in its own environment only: no command line, no file, no log, no record', skip),
    async () => {
      const server = host.toolbox.addServer({
        name: 'everything',
        transport: 'stdio',
        command: everythingServer.command,
        args: everythingServer.args,
        env: [{ name: 'LOOKUP_TOKEN', value: MARKER, secret: true }],
      });
      const work = tempDir('ssh-secrets-work');
      sshd.hand(work);
      const created = await host.handle('newConversation', {
        agentId: 'codex',
        cwd: work,
        machineId,
        serverIds: [server.serverId],
      });
      if (!created.ok) {
        throw new Error(created.error.message);
      }
      const { conversationId } = (created.result as { conversation: { conversationId: string } }).conversation;
      await sendAllowing(host, conversationId, 'please [tool:echo] now');

      // Codex offered the server's tools to the model, and the model's call went to it.
      expect(stub.modelRequests().some((request) => request.toolNames.some((tool) => tool.includes('everything')))).toBe(true);
      // The server ran there (under sshd), its secret in its own environment.
      const servers = processesWith('server-everything');
      expect(servers.length).toBeGreaterThan(0);
      for (const running of servers) {
        expect(running.ancestors.map((process) => process.name)).toContain('sshd');
        expect(readFileSync(`/proc/${running.pid}/environ`, 'utf8').split('\0')).toContain(`LOOKUP_TOKEN=${MARKER}`);
      }
      // Nowhere else.
      expect(commandLines().filter(({ line }) => line.includes(MARKER))).toEqual([]);
      expect(filesContaining(sshd.home, MARKER)).toEqual([]);
      expect(sshd.log()).not.toContain(MARKER);
      expect(logged.filter((line) => line.includes(MARKER))).toEqual([]);
      expect(JSON.stringify(host.store.readEnvelopes(conversationId))).not.toContain(MARKER);
    },
    180_000,
  );
});
