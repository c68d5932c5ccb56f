/** pi through its ACP bridge (`pi-acp`). */
import { builtinAdapter } from './builtinAdapter.js';

/** pi. It takes no MCP servers, so a binding with tools is refused rather than silently dropped. */
export const piAdapter = builtinAdapter({
  agentId: 'pi',
  displayName: 'pi',
  command: 'pi-acp',
  args: [],
  npmPackage: 'pi-acp @earendil-works/pi-coding-agent',
  instructionChannel: 'per process: --append-system-prompt or --system-prompt, through a wrapper named by PI_ACP_PI_COMMAND',
  takesMcpServers: false,
});
