/** OpenCode in ACP mode (`opencode acp`). */
import { builtinAdapter } from './builtinAdapter.js';

/** OpenCode. */
export const opencodeAdapter = builtinAdapter({
  agentId: 'opencode',
  displayName: 'OpenCode',
  command: 'opencode',
  args: ['acp'],
  npmPackage: 'opencode-ai',
  instructionChannel: 'per process: instructions files (append) or the agent prompt (replace) through OPENCODE_CONFIG_CONTENT',
  asksBeforeMcpTools: false,
});
