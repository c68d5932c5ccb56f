/**
 * How Baton's stdio bridge runs: with Node (this process when it is Node, else the `node` the
 * agents' environment finds), on the built bridge (dist/main/host/toolbox/, main/host/ownFiles.ts).
 */
import path from 'node:path';
import type { Env } from '../adapters/AgentAdapter.js';
import { findExecutable } from '../machine/findExecutable.js';
import { ownFile, runFromSources } from '../ownFiles.js';
import type { BridgeLaunch } from './ToolboxCatalog.js';

/** The command that runs the bridge script `file`. */
export function bridgeLaunch(env: Env, file = 'mcpBridge.js'): BridgeLaunch {
  // Built, the bridge is in the build beside this module's own; run from the sources (tests), it is the built one in dist/.
  const script = ownFile(`${runFromSources ? 'dist/' : ''}main/host/toolbox/${file}`);
  const node = path.basename(process.execPath).startsWith('node') ? process.execPath : (findExecutable('node', env) ?? 'node');
  return { command: node, args: [script] };
}
