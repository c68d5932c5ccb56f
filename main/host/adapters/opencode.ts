/** OpenCode in ACP mode (`opencode acp`). */
import { builtinAdapter } from './builtinAdapter.js';

/** OpenCode. */
export const opencodeAdapter = builtinAdapter({
  agentId: 'opencode',
  displayName: 'OpenCode',
  command: 'opencode',
  args: ['acp'],
  npmPackages: ['opencode-ai@1.18.33'],
  instructionChannel: 'per process: instructions files (append) or the agent prompt (replace) through OPENCODE_CONFIG_CONTENT',
  asksBeforeMcpTools: false,
});
