/**
 * Editing a toolbox server: a broken one can be fixed in place, its name too. A secret left as it
 * is keeps its sealed value (it is never sent back to the page), a secret given a new value or
 * dropped is deleted from the database, and another server's name is refused.
 */
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { dataFolderBytes } from '../../../e2e/fixtures/dataFiles.js';
import { Host, definedEnv } from '../Host.js';

describe('editing a toolbox server', () => {
  it('changes it in place, keeps a secret left as it is and deletes one replaced or dropped', async () => {
    const dataDir = tempDir('edit-server');
    const host = new Host({ dataDir, homeDir: tempDir('home'), env: definedEnv(process.env) });
    try {
      const { serverId } = host.toolbox.addServer({
        name: 'broken',
        transport: 'stdio',
        command: 'nodee',
        args: ['x.js'],
        env: [
          { name: 'API_KEY', value: 'KEEP-ME-41', secret: true },
          { name: 'OLD_TOKEN', value: 'DROP-ME-42', secret: true },
        ],
      });
      host.toolbox.addServer({ name: 'other', transport: 'stdio', command: 'node' });

      const clash = await host.handle('updateServer', { serverId, server: { name: 'Other', transport: 'stdio', command: 'node' } });
      expect(!clash.ok && clash.error.message).toBe('A server named "Other" is already in your toolbox; choose another name.');
      const noValue = await host.handle('updateServer', {
        serverId,
        server: { name: 'fixed', transport: 'stdio', command: 'node', env: [{ name: 'NEW_KEY', value: '', secret: true, keep: true }] },
      });
      expect(!noValue.ok && noValue.error.message).toBe('The secret NEW_KEY has no value yet; type one.');

      const updated = await host.handle('updateServer', {
        serverId,
        server: {
          name: 'fixed',
          transport: 'stdio',
          command: 'node',
          args: ['server.js'],
          env: [
            { name: 'API_KEY', value: '', secret: true, keep: true },
            { name: 'PLAIN', value: 'shown', secret: false },
          ],
        },
      });
      expect(updated).toMatchObject({ ok: true });
      expect(host.toolbox.listServers().find((server) => server.serverId === serverId)).toMatchObject({
        serverId,
        name: 'fixed',
        command: 'node',
        args: ['server.js'],
        env: [
          { name: 'API_KEY', secret: true },
          { name: 'PLAIN', value: 'shown', secret: false },
        ],
      });
      expect(host.toolbox.listServers().map((server) => server.name)).toEqual(['fixed', 'other']);
      // The kept secret still opens to its value; the dropped one is gone from every byte once folded.
      expect(host.toolbox.resolve([serverId], { env: {}, workspaceFolder: dataDir, userHome: dataDir })).toEqual([
        {
          name: 'fixed',
          command: 'node',
          args: ['server.js'],
          env: [
            { name: 'API_KEY', value: 'KEEP-ME-41' },
            { name: 'PLAIN', value: 'shown' },
          ],
        },
      ]);
      expect(host.toolbox.secretValues()).toEqual(['KEEP-ME-41']);

      const replaced = await host.handle('updateServer', {
        serverId,
        server: { name: 'fixed', transport: 'stdio', command: 'node', env: [{ name: 'API_KEY', value: 'NEW-VALUE-43', secret: true }] },
      });
      expect(replaced.ok).toBe(true);
      expect(host.toolbox.secretValues()).toEqual(['NEW-VALUE-43']);
      const missing = await host.handle('updateServer', { serverId: 'nope', server: { name: 'x', transport: 'stdio', command: 'node' } });
      expect(!missing.ok && missing.error.code).toBe('NotFound');
    } finally {
      await host.dispose();
    }
    expect(dataFolderBytes(dataDir)).not.toContain('KEEP-ME-41');
  });
});
