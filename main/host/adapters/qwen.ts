/** Qwen Code in ACP mode (`qwen --acp`). */
import { builtinAdapter } from './builtinAdapter.js';

/** Qwen Code. */
export const qwenAdapter = builtinAdapter({
  agentId: 'qwen',
  displayName: 'Qwen',
  command: 'qwen',
  args: ['--acp'],
  npmPackage: '@qwen-code/qwen-code',
  instructionChannel: 'per process: --append-system-prompt or --system-prompt',
  asksBeforeMcpTools: false,
  saveGraceMs: 1_500,
});
