/**
 * A folder's dev container, through the host API, with the dev container CLI Baton ships
 * (`devcontainer up --docker-path podman`) against a real podman and the test image:
 * - a folder with `.devcontainer/devcontainer.json` is offered (its config named), one without is not;
 * - opening it brings the container up (the CLI's output kept as the machine's log), connects to
 *   it, and says where the folder is there (`/workspaces/<name>`, as the CLI mounts it);
 * - a conversation there runs its agent in the container, and its shell writes into the folder here;
 * - a config naming an image that cannot be had blocks the machine with the CLI's words.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineInfo } from '../../../app/ipc/index.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { containerUnavailable, devContainerFolder, podmanSettingsEnv, testImage } from '../../../e2e/fixtures/container.js';
import { builtFile, ensureBuilt } from '../../../e2e/fixtures/ensureBuilt.js';
import { FAKE_AGENT_ID, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { Host, definedEnv } from '../Host.js';
import { callOn, sendAndSettle } from '../conversations/settledTurns.kit.test.js';

const unavailable = containerUnavailable();

describe.skipIf(unavailable !== undefined)('a dev container through the host API', () => {
  let host: Host;
  let image: string;
  const podman = (...args: string[]): string =>
    execFileSync('podman', args, { encoding: 'utf8', env: { ...process.env, ...podmanSettingsEnv() } }).trim();

  beforeAll(async () => {
    ensureBuilt();
    image = await testImage();
    const dataDir = tempDir('devcontainer-data');
    registerFakeAgent(dataDir);
    host = new Host({
      dataDir,
      env: { ...definedEnv(process.env), ...podmanSettingsEnv() },
      ssh: { configFile: path.join(dataDir, 'no-ssh-config'), knownHosts: [], bundle: builtFile('machine-server/server.mjs') },
    });
  }, 300_000);

  afterAll(async () => {
    await host?.dispose();
    for (const name of podman('ps', '-a', '--filter', 'label=baton.devcontainer', '--format', '{{.Names}}').split('\n').filter(Boolean)) {
      podman('rm', '-f', '-t', '0', name);
    }
  });

  const call = <T>(method: string, params: unknown): Promise<T> => callOn(host)<T>(method, params);

  it('opens a folder in its dev container, and a conversation there writes into the folder', async () => {
    const folder = devContainerFolder('proj', image);
    expect(await call('devContainerOf', { folder })).toEqual({ config: path.join(folder, '.devcontainer', 'devcontainer.json') });
    expect(await call('devContainerOf', { folder: tempDir('devcontainer-none') })).toEqual({ config: null });

    const { machine, workspace } = await call<{ machine: MachineInfo; workspace: string }>('openDevContainer', { folder });
    expect(machine).toMatchObject({ machineId: `dev:${folder}`, name: 'proj (dev container)', state: 'connected' });
    expect(workspace).toBe('/workspaces/proj');
    expect(machine.log.join('\n')).toContain('Container started');
    const { machines } = await call<{ machines: MachineInfo[] }>('listMachines', {});
    expect(machines.map((each) => each.name)).toContain('proj (dev container)');

    const { conversation } = await call<{ conversation: { conversationId: string } }>('newConversation', {
      agentId: FAKE_AGENT_ID,
      cwd: workspace,
      machineId: machine.machineId,
    });
    const first = await sendAndSettle(host, conversation.conversationId, 'hello');
    await sendAndSettle(host, conversation.conversationId, 'sh[pwd > made.txt && cat kept.txt >> made.txt]');
    expect(readFileSync(path.join(folder, 'made.txt'), 'utf8')).toBe('/workspaces/proj\nkept\n');
    const container = podman('ps', '--filter', `label=baton.devcontainer=${folder}`, '--format', '{{.Names}}');
    expect(podman('top', container, 'args')).toContain('fakeAgent.mjs');
    // Checkpoints there as anywhere (the folder is not at that path on this computer): the preview
    // shows the file as it is there, and a rewind removes what the shell wrote.
    const preview = await call<{ files: Array<{ path: string; before: string | null; after: string | null }> }>('previewRewind', {
      conversationId: conversation.conversationId,
      turnId: first,
    });
    expect(preview.files).toEqual([expect.objectContaining({ path: 'made.txt', before: '/workspaces/proj\nkept\n', after: null })]);
    const rewound = await call<{ failed: unknown[] }>('rewindConversation', {
      conversationId: conversation.conversationId,
      turnId: first,
      keepFiles: false,
      overwrite: [],
    });
    expect(rewound.failed).toEqual([]);
    expect(existsSync(path.join(folder, 'made.txt'))).toBe(false);
  }, 240_000);

  it('blocks the machine with the CLI’s words when the image cannot be had', async () => {
    const folder = devContainerFolder('broken', 'localhost/Baton-No-Such-Image');
    const { machine } = await call<{ machine: MachineInfo; workspace: string | null }>('openDevContainer', { folder });
    expect(machine.state).toBe('blocked');
    expect(machine.message).toContain(`devcontainer up failed for ${folder}`);
    expect(machine.log.length).toBeGreaterThan(0);
  }, 240_000);
});
