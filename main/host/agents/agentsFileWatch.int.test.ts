/**
 * agents.json followed as it is written: a file that cannot be read is said at once, fixing it
 * clears that and lists its agent, removing it takes the agent away; each pushed to windows
 * (agentsChanged) without a reload.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PushEvent } from '../../../app/ipc/index.js';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { noAgentsEnv } from '../../../e2e/fixtures/fakeAgentPackage.js';
import { until } from '../../../e2e/fixtures/until.js';
import { Host } from '../Host.js';

let host: Host | undefined;
afterEach(async () => {
  await host?.dispose();
  host = undefined;
});

describe('agents.json followed as it is written', () => {
  it('says a bad file at once, lists its agent once fixed, and drops it once removed', async () => {
    const dataDir = tempDir('agents-watch');
    host = new Host({ dataDir, env: noAgentsEnv() });
    const lists: Array<Extract<PushEvent, { name: 'agentsChanged' }>['payload']> = [];
    host.subscribe((event) => {
      if (event.name === 'agentsChanged') {
        lists.push(event.payload);
      }
    });
    const file = path.join(dataDir, 'agents.json');
    writeFileSync(file, '{ "agents": [ not json');
    const bad = await until(() => lists.at(-1)?.agentsFileProblem ?? undefined, 10_000);
    expect(bad).toContain('agents.json');

    writeFileSync(file, JSON.stringify({ agents: [{ name: 'Watched', command: process.execPath, args: ['-e', ''] }] }));
    await until(() => (lists.at(-1)?.agentsFileProblem === null ? true : undefined), 10_000);
    expect(lists.at(-1)?.agents.map((agent) => agent.displayName)).toContain('Watched');

    rmSync(file);
    await until(() => (lists.at(-1)?.agents.some((agent) => agent.displayName === 'Watched') === false ? true : undefined), 10_000);
  });
});
