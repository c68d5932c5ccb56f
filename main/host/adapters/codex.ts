/** Codex through Zed's ACP adapter (`codex-acp`). */
import { builtinAdapter } from './builtinAdapter.js';

/** Codex. */
export const codexAdapter = builtinAdapter({
  agentId: 'codex',
  displayName: 'Codex',
  command: 'codex-acp',
  args: [],
  npmPackages: ['@zed-industries/codex-acp@0.16.0'],
  instructionChannel: 'per process: model_instructions_file (replace) or developer_instructions (developer level) in its config',
  asksBeforeMcpTools: false,
});
