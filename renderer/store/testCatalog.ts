/** A server of the toolbox's catalog as the host sends it, for the renderer's tests. */
import type { CatalogServer } from '../../app/toolbox/catalog.js';

/** A stdio server started with `npx <id>-mcp`; `overrides` changes any field. */
export function testServer(serverId: string, overrides: Partial<CatalogServer> = {}): CatalogServer {
  return {
    serverId,
    name: serverId,
    description: '',
    transport: 'stdio',
    command: 'npx',
    args: [`${serverId}-mcp`],
    env: [],
    headers: [],
    variables: 'none',
    origin: { kind: 'baton' },
    bridge: false,
    ...overrides,
  };
}
