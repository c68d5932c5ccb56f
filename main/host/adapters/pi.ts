/** pi through its ACP bridge (`pi-acp`). */
import { builtinAdapter } from './builtinAdapter.js';

/** pi. It takes no MCP servers, so a binding with tools is refused rather than silently dropped. */
export const piAdapter = builtinAdapter({
  agentId: 'pi',
  displayName: 'pi',
  command: 'pi-acp',
  args: [],
  npmPackages: ['pi-acp@0.0.34', '@earendil-works/pi-coding-agent@1.6.0'],
  instructionChannel: 'per process: --append-system-prompt or --system-prompt, through a wrapper named by PI_ACP_PI_COMMAND',
  takesMcpServers: false,
});
