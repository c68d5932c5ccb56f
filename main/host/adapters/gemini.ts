/** Gemini CLI in ACP mode (`gemini --acp`). */
import { builtinAdapter } from './builtinAdapter.js';

/** Gemini CLI. */
export const geminiAdapter = builtinAdapter({
  agentId: 'gemini',
  displayName: 'Gemini',
  command: 'gemini',
  args: ['--acp'],
  npmPackages: ['@google/gemini-cli@0.61.0'],
  instructionChannel: 'per process: GEMINI_SYSTEM_MD names a file that replaces the system prompt',
  asksBeforeMcpTools: true,
});
