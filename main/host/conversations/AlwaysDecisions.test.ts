import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AlwaysDecision } from '../../../app/agents/alwaysDecisions.js';
import type { AgentCatalog } from '../agents/AgentCatalog.js';
import { LocalMachine } from '../machine/LocalMachine.js';
import { definedEnv } from '../process/env.js';
import type { EventStore } from '../store/EventStore.js';
import { AlwaysDecisions } from './AlwaysDecisions.js';
import type { Committer } from './Committer.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'baton-always-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The list over a store of one setting, with Claude's rule file, on `machineOf`'s machines. */
function decisions(kept: AlwaysDecision[], machineOf: ConstructorParameters<typeof AlwaysDecisions>[4]) {
  let list: unknown = kept;
  const store = { getSetting: () => list, setSetting: (_key: string, value: unknown) => (list = value) } as unknown as EventStore;
  const catalog = { adapters: () => [{ agentId: 'claude', savedRuleFiles: ['.claude/settings.local.json'] }] } as unknown as AgentCatalog;
  const committer = { commit: () => ({ events: [] }) } as unknown as Committer;
  const restarted: string[][] = [];
  const always = new AlwaysDecisions(store, catalog, committer, { restartAgents: (...args) => void restarted.push(args) }, machineOf);
  return { always, restarted };
}

function decision(cwd: string, machine?: string): AlwaysDecision {
  return {
    id: 'd1',
    agentId: 'claude',
    agentName: 'Claude',
    cwd,
    ...(machine ? { machine } : {}),
    title: 'Write notes.txt',
    optionName: 'Always allow',
    decision: 'allow',
    conversationId: 'c1',
    turnId: 't1',
    requestId: 'r1',
    decidedAt: new Date().toISOString(),
  };
}

describe('revoking an "always" answer names the agent\'s own rule files on the folder\'s machine', () => {
  const here = new LocalMachine(definedEnv(process.env));
  const restart = 'Claude starts afresh for its next message in this folder: rules it kept for the session are gone.';

  it('names the file when it is there, and nothing when it is not', async () => {
    const work = path.join(root, 'work');
    mkdirSync(path.join(work, '.claude'), { recursive: true });
    const { always, restarted } = decisions([decision(work)], () => here);
    expect(await always.revoke('d1')).toEqual({ note: restart });
    expect(restarted).toEqual([['claude', work, 'local']]);

    writeFileSync(path.join(work, '.claude', 'settings.local.json'), '{}');
    const again = decisions([decision(work)], () => here);
    expect((await again.always.revoke('d1')).note).toBe(
      `${restart} Claude may also have saved the rule in ${path.join(work, '.claude', 'settings.local.json')}; Baton does not change the agent's own files.`,
    );
  });

  it('looks on the machine the folder is on, and names the possible file while that machine is not open', async () => {
    const asked: string[] = [];
    const there = {
      platform: { os: 'linux' as const, arch: 'x64' },
      stat: (file: string) => {
        asked.push(file);
        return Promise.resolve({ kind: 'file' as const, size: 2, mode: 0o100644, uid: 0, gid: 0 });
      },
    };
    const open = decisions([decision('/srv/work', 'build-box')], (machineId) => (machineId === 'build-box' ? there : undefined));
    expect((await open.always.revoke('d1')).note).toContain('may also have saved the rule in /srv/work/.claude/settings.local.json;');
    expect(asked).toEqual(['/srv/work/.claude/settings.local.json']);
    expect(open.restarted).toEqual([['claude', '/srv/work', 'build-box']]);

    const closed = decisions([decision('/srv/work', 'build-box')], () => undefined);
    expect((await closed.always.revoke('d1')).note).toContain('may also have saved the rule in /srv/work/.claude/settings.local.json;');
  });
});
