import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../e2e/fixtures/agentEnv.js';
import { AgentCatalog, builtinAdapters } from '../agents/AgentCatalog.js';
import { packageName } from './builtinAdapter.js';
import { withoutForeignSandboxFlag } from './claude.js';
import { readCustomAgents } from '../agents/customAgents.js';

describe('custom agents', () => {
  it('reads agents.json, with unique ids for equal names', () => {
    const dir = tempDir('agents');
    const file = path.join(dir, 'agents.json');
    writeFileSync(
      file,
      JSON.stringify({
        agents: [
          { name: 'My Agent', command: 'my-agent', args: ['--acp'], env: { A: '1' } },
          { name: 'My Agent', command: 'other' },
        ],
      }),
    );
    const { adapters, problem } = readCustomAgents(file);
    expect(problem).toBeUndefined();
    expect(adapters.map((adapter) => adapter.agentId)).toEqual(['custom:my-agent', 'custom:my-agent-2']);
    expect(adapters[0]).toMatchObject({ displayName: 'My Agent', command: 'my-agent', args: ['--acp'], env: { A: '1' }, source: 'custom' });
  });

  it("takes Zed's agent_servers shape, comments and trailing commas included", () => {
    const dir = tempDir('agents');
    const file = path.join(dir, 'agents.json');
    writeFileSync(
      file,
      `{
        // copied from Zed's settings.json
        "theme": "One Dark",
        "agent_servers": {
          "Zed Custom": { "type": "custom", "command": "/opt/agent", "args": ["--acp"], "env": { "K": "v" }, },
          "Legacy": { "command": "legacy-agent" },
          "From Extension": { "type": "extension" },
        },
      }`,
    );
    const { adapters, problem } = readCustomAgents(file);
    expect(problem).toBeUndefined();
    expect(adapters.map(({ agentId, displayName, command, args, env }) => ({ agentId, displayName, command, args, env }))).toEqual([
      { agentId: 'custom:zed-custom', displayName: 'Zed Custom', command: '/opt/agent', args: ['--acp'], env: { K: 'v' } },
      { agentId: 'custom:legacy', displayName: 'Legacy', command: 'legacy-agent', args: [], env: {} },
    ]);
  });

  it('treats a missing file as none and reports a bad one with its reason', () => {
    const dir = tempDir('agents');
    expect(readCustomAgents(path.join(dir, 'agents.json'))).toEqual({ adapters: [], problem: undefined });
    writeFileSync(path.join(dir, 'agents.json'), '{ "agents": [ { "name": "x" } ] }');
    expect(readCustomAgents(path.join(dir, 'agents.json')).problem).toMatch(/agents\.0\.command/);
    writeFileSync(path.join(dir, 'agents.json'), '{ nope');
    expect(readCustomAgents(path.join(dir, 'agents.json')).problem).toMatch(/not valid JSON/);
    // Where it goes wrong, as a person finds it in an editor.
    writeFileSync(path.join(dir, 'agents.json'), '{\n  "agents": [\n    { "name": "x", "command": "y" }\n    { "name": "z" }\n  ]\n}');
    expect(readCustomAgents(path.join(dir, 'agents.json')).problem).toMatch(/not valid JSON: \w+ at line 4, column 5$/);
    writeFileSync(path.join(dir, 'agents.json'), '{ "theme": "dark" }');
    expect(readCustomAgents(path.join(dir, 'agents.json')).problem).toMatch(/agent_servers/);
  });

  it('the catalog says why a bad agents.json was not read, keeping the built-ins', () => {
    const dir = tempDir('agents');
    writeFileSync(path.join(dir, 'agents.json'), '[]');
    const { agents, agentsFileProblem } = new AgentCatalog(dir, { PATH: '' }).list();
    expect(agents.map((agent) => agent.displayName)).toEqual(['Claude', 'Codex', 'Gemini', 'Qwen', 'OpenCode', 'pi']);
    expect(agentsFileProblem).toContain('agents.json');
  });

  it('marks an agent available only when its executable is on PATH', () => {
    const dir = tempDir('agents');
    const bin = path.join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(path.join(bin, 'codex-acp'), '#!/bin/sh\n');
    chmodSync(path.join(bin, 'codex-acp'), 0o755);
    writeFileSync(path.join(bin, 'gemini'), 'not executable');
    const list = new AgentCatalog(dir, { PATH: bin }).list().agents;
    const byId = Object.fromEntries(list.map((agent) => [agent.agentId, agent]));
    expect(byId.codex?.available).toBe(true);
    expect(byId.gemini?.available).toBe(false);
    expect(byId.claude).toMatchObject({ available: false, installHint: 'Install it with: npm i -g @agentclientprotocol/claude-agent-acp' });
  });
});

describe('claude quirk', () => {
  it('drops IS_SANDBOX unless it is exactly 1', () => {
    expect(withoutForeignSandboxFlag({ IS_SANDBOX: 'yes', A: 'b' })).toEqual({ A: 'b' });
    expect(withoutForeignSandboxFlag({ IS_SANDBOX: '1' })).toEqual({ IS_SANDBOX: '1' });
    expect(withoutForeignSandboxFlag({ A: 'b' })).toEqual({ A: 'b' });
  });
});

describe('pinned packages', () => {
  it('Baton installs exactly the versions the conformance suite runs (e2e/agents/package.json)', () => {
    const testAgents = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../../e2e/agents/package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const adapter of builtinAdapters) {
      expect(adapter.npmPackages?.length, adapter.agentId).toBeGreaterThan(0);
      for (const spec of adapter.npmPackages ?? []) {
        const name = packageName(spec);
        expect(`${name}@${testAgents.dependencies[name]}`, adapter.agentId).toBe(spec);
      }
    }
  });
});
