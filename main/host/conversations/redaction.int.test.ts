/**
 * One redaction step, end to end through a real ACP child process (the fake agent): marker secrets
 * from the toolbox, the host's environment and an agent's own environment, placed in terminal
 * output, agent text, an error tail and a trusted `.baton/instructions.md`, are found in no byte
 * of the data folder, in no export, and in nothing the agent was sent.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { dataFolderBytes } from '../../../e2e/fixtures/dataFiles.js';
import { FAKE_AGENT_ID, fakeAgentLog, registerFakeAgent } from '../../../e2e/fixtures/fakeAgentConfig.js';
import { Host, definedEnv } from '../Host.js';

const TOOLBOX_SECRET = 'marker-toolbox-secret-5d1f';
const HOST_SECRET = 'marker-host-env-secret-8c2a';
const AGENT_SECRET = 'marker-agent-env-secret-3e9b';
const MARKERS = [TOOLBOX_SECRET, HOST_SECRET, AGENT_SECRET];

let host: Host | undefined;
afterEach(async () => {
  await host?.dispose();
  host = undefined;
});

/** Every place a marker could hide: the raw text and its JSON-escaped and URL-encoded forms. */
function found(haystack: string): string[] {
  return MARKERS.filter((marker) => haystack.includes(marker) || haystack.includes(encodeURIComponent(marker)));
}

describe('secrets', () => {
  it('are in no byte of the data folder, no export and nothing the agent was sent', async () => {
    const dataDir = tempDir('redaction');
    const work = tempDir('redaction-work');
    registerFakeAgent(dataDir, {
      sessionInstructions: true,
      sessions: true,
      env: { CUSTOM_API_KEY: AGENT_SECRET, FAKE_AGENT_STDERR_SECRET: TOOLBOX_SECRET },
    });
    host = new Host({ dataDir, env: { ...definedEnv(process.env), MARKER_SERVICE_TOKEN: HOST_SECRET } });
    host.toolbox.addServer({
      name: 'loc',
      description: '',
      transport: 'stdio',
      command: 'loc-server',
      args: [],
      env: [{ name: 'LOC_TOKEN', value: TOOLBOX_SECRET, secret: true }],
      headers: [],
      variables: 'none',
      bridge: false,
    });
    // A trusted folder whose instructions name the toolbox secret and the host's key.
    mkdirSync(path.join(work, '.baton'));
    writeFileSync(path.join(work, '.baton', 'instructions.md'), `Use the token ${TOOLBOX_SECRET} and ${HOST_SECRET} for deploys.\n`);
    const projects = host.instructions.projects;
    await projects.trust({ machine: host.machine, cwd: work }, (await projects.read({ machine: host.machine, cwd: work })).sha256 ?? '');

    const { conversationId } = host.conversations.create(FAKE_AGENT_ID, work);
    await host.turns.send(conversationId, 'terminal env');
    await host.turns.idle();
    await host.turns.send(conversationId, 'crash now');
    await host.turns.idle();

    const events = JSON.stringify(host.store.readEvents(conversationId).events);
    // The terminal really printed the environment (redacted), and the crash's error tail was recorded.
    expect(events).toContain('MARKER_SERVICE_TOKEN=[secret redacted by Baton]');
    expect(events).toContain('CUSTOM_API_KEY=[secret redacted by Baton]');
    expect(events).toContain('fake agent: was using [secret redacted by Baton]');
    expect(found(events)).toEqual([]);
    for (const format of ['markdown', 'jsonl'] as const) {
      const exported = await host.handle('exportConversation', { conversationId, format });
      expect(exported.ok).toBe(true);
      expect(found(JSON.stringify(exported))).toEqual([]);
    }
    await host.dispose();
    host = undefined;
    expect(found(dataFolderBytes(dataDir).replace(readFileSync(path.join(dataDir, 'agents.json'), 'latin1'), ''))).toEqual([]);
    // What the agent was given: the project's text arrived, without the secrets.
    const sent = JSON.stringify(fakeAgentLog(dataDir));
    expect(sent).toContain('for deploys');
    expect(found(sent)).toEqual([]);
  });
});
