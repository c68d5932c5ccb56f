/** The binding resolver: the channel each intent takes (the standard first), the two digests, and the refusals with their one text. */
import { describe, expect, it } from 'vitest';
import type { InitializeResponse } from '../acp/AgentConnection.js';
import { claudeAdapter } from '../adapters/claude.js';
import { codexAdapter } from '../adapters/codex.js';
import { geminiAdapter } from '../adapters/gemini.js';
import { piAdapter } from '../adapters/pi.js';
import { claudeStaleEndOfTurn } from '../adapters/quirks/claudeStaleEndOfTurn.js';
import { codexSingleProcess } from '../adapters/quirks/codexSingleProcess.js';
import { qwenProcessPerSession } from '../adapters/quirks/qwenProcessPerSession.js';
import { piOneLiveSession } from '../adapters/quirks/piOneLiveSession.js';
import { compareVersions } from '../adapters/versions.js';
import type { SessionFolder } from '../process/SessionFolder.js';
import type { Instructions } from './PreparedBinding.js';
import { bindingChange, resolveBinding } from './resolveBinding.js';

const settings = { off: false, commandLineAccepted: false, contextAsText: false };
const instructions = (append: string | null, replace: string | null = null): Instructions => ({
  append,
  replace,
  sha256: `${append}|${replace}`,
  settings,
  fragment: false,
});
const answer = (systemPrompt: unknown, version = '1.0.0'): InitializeResponse =>
  ({
    protocolVersion: 1,
    agentInfo: { name: 'x', version },
    agentCapabilities: { sessionCapabilities: { systemPrompt } },
  }) as InitializeResponse;
const folder = (): SessionFolder => ({ write: (name: string) => `/private/${name}` }) as unknown as SessionFolder;
const base = { executable: '/bin/agent', baseEnv: { HOME: '/home/p' }, cwd: '/work' };

describe('resolveBinding', () => {
  it('puts both intents on the standard systemPrompt where the agent advertises override', () => {
    const binding = resolveBinding({
      ...base,
      adapter: claudeAdapter,
      instructions: instructions('ADD', 'REPLACE'),
      initialized: answer({ mode: { override: {} } }),
    });
    expect(binding.session.systemPrompt).toEqual({ mode: 'override', content: [{ type: 'text', text: 'REPLACE\n\nADD' }] });
    expect(binding.session.meta).toBeUndefined();
    expect(binding.plan.levels).toEqual({ replace: { kind: 'system-replaced' }, append: { kind: 'system-added' } });
    expect(binding.refusals).toEqual([]);
  });

  it("keeps Claude's own _meta channel for an adapter that does not advertise the standard", () => {
    const binding = resolveBinding({ ...base, adapter: claudeAdapter, instructions: instructions('ADD'), initialized: answer(undefined) });
    expect(binding.session.systemPrompt).toBeUndefined();
    expect(binding.session.meta).toEqual({ systemPrompt: { append: 'ADD' } });
  });

  it('asks Codex to have its MCP servers started before it answers, only when the session has some', () => {
    const server = { name: 'tools', command: '/bin/tools', args: [], env: [] };
    const withTools = resolveBinding({ ...base, adapter: codexAdapter, mcpServers: [server], initialized: answer({}) });
    expect(withTools.session.meta).toEqual({ mcpStartupAwaitTimeoutMs: 30_000 });
    const withInstructions = resolveBinding({
      ...base,
      adapter: claudeAdapter,
      mcpServers: [server],
      instructions: instructions('ADD'),
      initialized: answer(undefined),
    });
    expect(withInstructions.session.meta).toEqual({ systemPrompt: { append: 'ADD' } });
    expect(resolveBinding({ ...base, adapter: codexAdapter, initialized: answer({}) }).session.meta).toBeUndefined();
  });

  it('sends Codex an append on the standard (developer level) and a replacement on its launch', () => {
    const binding = resolveBinding({
      ...base,
      adapter: codexAdapter,
      instructions: instructions('ADD', 'REPLACE'),
      initialized: answer({}),
    });
    expect(binding.session.systemPrompt).toEqual({ mode: 'append', content: [{ type: 'text', text: 'ADD' }] });
    expect(binding.plan.levels.append).toEqual({ kind: 'developer' });
    const launch = binding.launch.materialize(folder);
    expect(JSON.parse(launch.env.CODEX_CONFIG ?? '{}')).toEqual({ model_instructions_file: '/private/instructions.md' });
    // Another launch part, so another process: the digest says so.
    expect(binding.launch.digest).not.toBe(resolveBinding({ ...base, adapter: codexAdapter, initialized: answer({}) }).launch.digest);
  });

  it('digests the session part by what it carries, not by when it was made', () => {
    const one = resolveBinding({ ...base, adapter: claudeAdapter, instructions: instructions('ADD'), initialized: answer({}) });
    const two = resolveBinding({
      ...base,
      adapter: claudeAdapter,
      instructions: instructions('ADD'),
      initialized: answer({}),
      chosenOptions: { model: 'opus' },
    });
    const other = resolveBinding({ ...base, adapter: claudeAdapter, instructions: instructions('OTHER'), initialized: answer({}) });
    expect(one.session.digest).toBe(two.session.digest);
    expect(one.session.digest).not.toBe(other.session.digest);
    expect(one.launch.digest).toBe(other.launch.digest);
  });

  it('refuses what the agent cannot take, each with one text', () => {
    const tools = resolveBinding({ ...base, adapter: piAdapter, mcpServers: [{ name: 'a', command: 'x', args: [], env: [] }] });
    expect(tools.refusals.map((error) => error.message)).toEqual([expect.stringContaining('it does not use MCP servers')]);
    const append = resolveBinding({ ...base, adapter: geminiAdapter, instructions: instructions('ADD'), initialized: answer(undefined) });
    expect(append.refusals.map((error) => error.message)).toEqual([expect.stringContaining('Gemini cannot add to its own prompt')]);
    const sse = resolveBinding({
      ...base,
      adapter: codexAdapter,
      mcpServers: [{ type: 'sse', name: 'feed', url: 'http://127.0.0.1:1/sse', headers: [] }],
      initialized: answer({}),
    });
    expect(sse.refusals.map((error) => error.message)).toEqual([expect.stringContaining('does not take SSE MCP servers')]);
  });

  it('puts servers with secrets behind the launcher only for agents that expose their server config', () => {
    const server = { name: 'a', command: 'x', args: [], env: [{ name: 'API_TOKEN', value: 'v' }] };
    const shield = () => ({ name: 'a', command: 'launcher', args: [], env: [] });
    expect(resolveBinding({ ...base, adapter: claudeAdapter, mcpServers: [server], shield }).mcpServers[0]).toMatchObject({
      command: 'launcher',
    });
    expect(resolveBinding({ ...base, adapter: codexAdapter, mcpServers: [server], shield }).mcpServers[0]).toBe(server);
  });
});

describe('quirks name the versions they apply to', () => {
  it('compares versions by their numbers', () => {
    expect(compareVersions('0.101.0', '0.23.1')).toBe(1);
    expect(compareVersions('2.6.0', '2.6.0-beta.1')).toBe(0);
    expect(compareVersions('0.9', '0.10.0')).toBe(-1);
  });

  it('applies each quirk to the releases measured with it', () => {
    expect(claudeStaleEndOfTurn.reopenAfterCancel('0.23.1')).toBe(true);
    expect(claudeStaleEndOfTurn.reopenAfterCancel('0.101.0')).toBe(false);
    expect(codexSingleProcess.exclusiveState.applies('2.6.0')).toBe(true);
    expect(codexSingleProcess.exclusiveState.applies('0.16.0')).toBe(false);
    expect(codexSingleProcess.exclusiveState.key({ HOME: '/home/p' })).toBe('/home/p/.codex');
    expect(qwenProcessPerSession.processPerSession('0.24.4')).toBe(true);
    expect(qwenProcessPerSession.processPerSession('0.15.10')).toBe(false);
    expect(piOneLiveSession.processPerSession('0.0.34')).toBe(true);
    expect(piOneLiveSession.processPerSession(undefined)).toBe(true);
  });

  it('a session is reused while the request resolves to its binding; otherwise the change says what changed', () => {
    const initialized = answer({ mode: { override: {} } });
    const request = { ...base, adapter: claudeAdapter, instructions: instructions('ADD'), chosenOptions: { model: 'a' } };
    const bound = resolveBinding({ ...request, initialized });
    // The person's choices are applied to a session, not bound into it.
    expect(bindingChange(bound, initialized, { ...request, chosenOptions: { model: 'b' } })).toBeUndefined();
    expect(bindingChange(bound, initialized, { ...request, instructions: instructions('OTHER') })).toMatchObject({
      type: 'binding.changed',
      payload: { changed: ['the instructions'], instructionsDigest: 'OTHER|null' },
    });
    const server = { name: 'fs', command: '/bin/fs', args: [], env: [] };
    expect(bindingChange(bound, initialized, { ...request, mcpServers: [server] })?.payload).toMatchObject({
      changed: ['the toolbox'],
      sessionDigest: expect.not.stringMatching(bound.session.digest),
    });
  });
});
