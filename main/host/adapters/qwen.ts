/** Qwen Code in ACP mode (`qwen --acp`). */
import { builtinAdapter } from './builtinAdapter.js';

/** Qwen Code. */
export const qwenAdapter = builtinAdapter({
  agentId: 'qwen',
  displayName: 'Qwen',
  command: 'qwen',
  args: ['--acp'],
  npmPackages: ['@qwen-code/qwen-code@0.15.10'],
  instructionChannel: 'per process: --append-system-prompt or --system-prompt',
  asksBeforeMcpTools: false,
  saveGraceMs: 1_500,
});
