/** Gemini CLI in ACP mode (`gemini --acp`). */
import { builtinAdapter } from './builtinAdapter.js';

/** Gemini CLI. */
export const geminiAdapter = builtinAdapter({
  agentId: 'gemini',
  displayName: 'Gemini',
  command: 'gemini',
  args: ['--acp'],
  npmPackage: '@google/gemini-cli',
  instructionChannel: 'per process: GEMINI_SYSTEM_MD names a file that replaces the system prompt',
  asksBeforeMcpTools: true,
});
