import { describe, expect, it } from 'vitest';
import { geminiAdapter } from '../adapters/gemini.js';
import type { AgentAdapter } from '../adapters/AgentAdapter.js';
import { negotiatedCapability, ownPromptSettings } from './deliverInstructions.js';

const custom: AgentAdapter = {
  agentId: 'custom:mine',
  displayName: 'Mine',
  source: 'custom',
  command: 'mine',
  args: [],
  instructions: { capability: 'negotiated' },
};

describe("the person's own system-prompt settings", () => {
  it.each([
    [['--append-system-prompt', 'be brief'], 'append', '--append-system-prompt'],
    [['--append-system-prompt=be brief'], 'append', '--append-system-prompt'],
    [['--append-system-prompt-file', '/x'], 'append', '--append-system-prompt-file'],
    [['--append-system-prompt-file=/x'], 'append', '--append-system-prompt-file'],
    [['--system-prompt', 'you are'], 'replace', '--system-prompt'],
    [['--system-prompt=you are'], 'replace', '--system-prompt'],
    [['--system-prompt-file', '/x'], 'replace', '--system-prompt-file'],
    [['--system-prompt-file=/x'], 'replace', '--system-prompt-file'],
  ])("%j in a custom agent's arguments is found (%s)", (args, intent, flag) => {
    expect(ownPromptSettings(custom, { args, env: {} })).toEqual({ [intent]: `${flag} in its arguments` });
  });

  it('other arguments are not mistaken for them', () => {
    expect(ownPromptSettings(custom, { args: ['--acp', '--system-prompts', 'system-prompt', '--no-system-prompt'], env: {} })).toEqual({});
  });

  it('an environment variable the agent reads for its prompt is found', () => {
    expect(ownPromptSettings(geminiAdapter, { args: ['--acp'], env: { GEMINI_SYSTEM_MD: '1' } })).toEqual({
      replace: 'GEMINI_SYSTEM_MD setting in its environment',
    });
    expect(ownPromptSettings(geminiAdapter, { args: ['--acp'], env: {} })).toEqual({});
  });

  it('custom agents negotiate their channels at initialize', () => {
    expect(negotiatedCapability({ protocolVersion: 1, agentCapabilities: {} })).toEqual({});
    expect(
      negotiatedCapability({ protocolVersion: 1, agentCapabilities: { _meta: { 'baton.dev': { sessionInstructions: true } } } }),
    ).toMatchObject({ replace: { level: 'system' }, append: { level: 'system' } });
  });
});
