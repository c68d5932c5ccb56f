/**
 * The toolbox catalog in the data folder's database: MCP servers (secret values sealed by the
 * SecretBox, never stored or shown in the clear), named toolboxes, and the resolution of a
 * conversation's choice into the complete ACP `McpServer[]` a session is given.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { z } from 'zod';
import { InvalidRequestError, NotFoundError } from '../../../app/errors.js';
import { newId } from '../../../app/ids.js';
import {
  catalogServerSchema,
  serverInputSchema,
  serverOriginSchema,
  transportSchema,
  variableSyntaxSchema,
  type CatalogServer,
  type ServerInput,
  type ServerOrigin,
  type Toolbox,
  type ToolboxChoice,
} from '../../../app/toolbox/catalog.js';
import { splitCommandLine } from '../../../app/toolbox/commandLine.js';
import type { McpServer } from '../../../app/toolbox/mcpServer.js';
import { resolveVariables, type VariableScope } from '../../../app/toolbox/variables.js';
import { existsOnThisComputer } from '../machine/findExecutable.js';
import type { EventStore } from '../store/EventStore.js';
import type { SecretBox } from './SecretBox.js';

const storedEntrySchema = z.union([
  z.object({ name: z.string(), value: z.string() }),
  z.object({ name: z.string(), secretId: z.string() }),
]);
type StoredEntry = z.infer<typeof storedEntrySchema>;

const storedSpecSchema = z.object({
  description: z.string(),
  transport: transportSchema,
  command: z.string().optional(),
  args: z.array(z.string()),
  url: z.string().optional(),
  env: z.array(storedEntrySchema),
  headers: z.array(storedEntrySchema),
  variables: variableSyntaxSchema,
  origin: serverOriginSchema,
  bridge: z.boolean().default(false),
});
type StoredSpec = z.infer<typeof storedSpecSchema>;

type ServerRow = { server_id: string; name: string; spec: string };
type ToolboxRow = { toolbox_id: string; name: string; server_ids: string; is_default: number };

/** How Baton's stdio bridge is started (see mcpBridge.ts). */
export type BridgeLaunch = { command: string; args: readonly string[] };

/** The catalog. */
export class ToolboxCatalog {
  private readonly statements;
  private readonly write: <R>(work: () => R) => R;
  /** The opened secret values, kept until the next write (redaction asks on every commit). */
  private openedSecrets: string[] | undefined;
  /** Told the name a server had whenever it is changed or removed. */
  private readonly changeListeners = new Set<(name: string) => void>();

  constructor(
    store: EventStore,
    private readonly secrets: SecretBox,
    private readonly bridgeLaunch: BridgeLaunch,
  ) {
    const { statements, write } = store.repository((db: Database.Database, write) => ({
      write,
      statements: {
        servers: db.prepare<[], ServerRow>('SELECT server_id, name, spec FROM mcp_servers ORDER BY name COLLATE NOCASE'),
        server: db.prepare<[string], ServerRow>('SELECT server_id, name, spec FROM mcp_servers WHERE server_id = ?'),
        byName: db.prepare<[string], ServerRow>('SELECT server_id, name, spec FROM mcp_servers WHERE name = ? COLLATE NOCASE'),
        insertServer: db.prepare('INSERT INTO mcp_servers (server_id, name, spec, created_at, updated_at) VALUES (?, ?, ?, ?, ?)'),
        deleteServer: db.prepare('DELETE FROM mcp_servers WHERE server_id = ?'),
        updateSpec: db.prepare('UPDATE mcp_servers SET spec = ?, updated_at = ? WHERE server_id = ?'),
        updateServer: db.prepare('UPDATE mcp_servers SET name = ?, spec = ?, updated_at = ? WHERE server_id = ?'),
        insertSecret: db.prepare('INSERT INTO secrets (secret_id, ciphertext) VALUES (?, ?)'),
        secret: db.prepare<[string], { ciphertext: string }>('SELECT ciphertext FROM secrets WHERE secret_id = ?'),
        deleteSecret: db.prepare('DELETE FROM secrets WHERE secret_id = ?'),
        allSecrets: db.prepare<[], { ciphertext: string }>('SELECT ciphertext FROM secrets'),
        toolboxes: db.prepare<[], ToolboxRow>('SELECT * FROM toolboxes ORDER BY name COLLATE NOCASE'),
        upsertToolbox: db.prepare('INSERT OR REPLACE INTO toolboxes (toolbox_id, name, server_ids, is_default) VALUES (?, ?, ?, ?)'),
        clearDefault: db.prepare('UPDATE toolboxes SET is_default = 0'),
        deleteToolbox: db.prepare('DELETE FROM toolboxes WHERE toolbox_id = ?'),
      },
    }));
    this.statements = statements;
    // Every write may add or remove a secret: what secretValues() opened is read again after one.
    this.write = (work) => {
      this.openedSecrets = undefined;
      return write(work);
    };
  }

  /** Calls `listener` with a server's former name whenever it is changed or removed; returns the removal. */
  onServerChange(listener: (name: string) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private changed(name: string): void {
    for (const listener of this.changeListeners) {
      listener(name);
    }
  }

  /** Every server, as the page may see it (secret values left out). */
  listServers(): CatalogServer[] {
    return this.statements.servers.all().map((row) => this.shown(row));
  }

  /** Adds a server; its secret values are sealed before anything is written. */
  addServer(input: ServerInput, origin: ServerOrigin = { kind: 'baton' }): CatalogServer {
    const server = this.checked(input, undefined);
    const serverId = newId();
    return this.write(() => {
      const spec = JSON.stringify(this.spec(server, origin, []));
      const now = new Date().toISOString();
      this.statements.insertServer.run(serverId, server.name, spec, now, now);
      return this.shown({ server_id: serverId, name: server.name, spec });
    });
  }

  /**
   * Changes a server, its name too. A secret sent with `keep` keeps its sealed value; a secret no
   * longer named, or given a new value, is deleted. Where it came from is kept.
   */
  updateServer(serverId: string, input: ServerInput): CatalogServer {
    const row = this.statements.server.get(serverId);
    if (!row) {
      throw new NotFoundError('MCP server', serverId);
    }
    const server = this.checked(input, serverId);
    const before = storedSpecSchema.parse(JSON.parse(row.spec));
    const sealedBefore = [...before.env, ...before.headers].flatMap((entry) => ('secretId' in entry ? [entry] : []));
    return this.write(() => {
      const spec = this.spec(server, before.origin, sealedBefore);
      const kept = new Set([...spec.env, ...spec.headers].flatMap((entry) => ('secretId' in entry ? [entry.secretId] : [])));
      for (const entry of sealedBefore) {
        if (!kept.has(entry.secretId)) {
          this.statements.deleteSecret.run(entry.secretId);
        }
      }
      const text = JSON.stringify(spec);
      this.statements.updateServer.run(server.name, text, new Date().toISOString(), serverId);
      this.changed(row.name);
      return this.shown({ server_id: serverId, name: server.name, spec: text });
    });
  }

  /** The input checked: its shape, a name no other server has, a command that is a program. */
  private checked(input: ServerInput, serverId: string | undefined): z.output<typeof serverInputSchema> {
    const parsed = serverInputSchema.safeParse(input);
    if (!parsed.success) {
      throw new InvalidRequestError(parsed.error.issues.map((issue) => issue.message).join(' '));
    }
    const server = parsed.data;
    const named = this.statements.byName.get(server.name);
    if (named && named.server_id !== serverId) {
      throw new InvalidRequestError(`A server named "${server.name}" is already in your toolbox; choose another name.`);
    }
    refuseCommandLine(server.transport === 'stdio' ? server.command : undefined);
    return server;
  }

  /** What is stored for a server; secret values are sealed (a kept one reuses its sealed value). Runs inside a write. */
  private spec(
    server: z.output<typeof serverInputSchema>,
    origin: ServerOrigin,
    sealedBefore: ReadonlyArray<{ name: string; secretId: string }>,
  ): StoredSpec {
    const seal = (entries: typeof server.env): StoredEntry[] =>
      entries.map(({ name, value, secret, keep }) => {
        if (!secret) {
          return { name, value };
        }
        if (keep) {
          const before = sealedBefore.find((entry) => entry.name === name);
          if (!before) {
            throw new InvalidRequestError(`The secret ${name} has no value yet; type one.`);
          }
          return { name, secretId: before.secretId };
        }
        const secretId = newId();
        this.statements.insertSecret.run(secretId, this.secrets.seal(value));
        return { name, secretId };
      });
    return {
      description: server.description,
      transport: server.transport,
      ...(server.transport === 'stdio' ? { command: server.command } : { url: server.url }),
      args: server.transport === 'stdio' ? server.args : [],
      env: server.transport === 'stdio' ? seal(server.env) : [],
      headers: server.transport === 'stdio' ? [] : seal(server.headers),
      variables: server.variables,
      origin,
      bridge: server.transport !== 'stdio' && server.bridge,
    };
  }

  /** Runs an SSE or HTTP server through Baton's local stdio bridge (or no longer). */
  setBridge(serverId: string, bridge: boolean): CatalogServer {
    const row = this.statements.server.get(serverId);
    if (!row) {
      throw new NotFoundError('MCP server', serverId);
    }
    const spec = storedSpecSchema.parse(JSON.parse(row.spec));
    if (spec.transport === 'stdio' && bridge) {
      throw new InvalidRequestError(`"${row.name}" is a stdio server already; it needs no bridge.`);
    }
    const updated = JSON.stringify({ ...spec, bridge });
    this.write(() => this.statements.updateSpec.run(updated, new Date().toISOString(), serverId));
    this.changed(row.name);
    return this.shown({ ...row, spec: updated });
  }

  /** Every secret value the toolbox keeps, opened (for redacting them from what Baton records and sends). */
  secretValues(): string[] {
    this.openedSecrets ??= this.statements.allSecrets.all().flatMap(({ ciphertext }) => {
      try {
        return [this.secrets.open(ciphertext)];
      } catch {
        return [];
      }
    });
    return this.openedSecrets;
  }

  /** Removes a server and its secrets (toolboxes that named it simply lose it). */
  removeServer(serverId: string): void {
    const row = this.statements.server.get(serverId);
    if (!row) {
      throw new NotFoundError('MCP server', serverId);
    }
    const spec = storedSpecSchema.parse(JSON.parse(row.spec));
    this.write(() => {
      for (const entry of [...spec.env, ...spec.headers]) {
        if ('secretId' in entry) {
          this.statements.deleteSecret.run(entry.secretId);
        }
      }
      this.statements.deleteServer.run(serverId);
    });
    this.changed(row.name);
  }

  /** The named toolboxes (servers removed since are left out of them). */
  listToolboxes(): Toolbox[] {
    const known = new Set(this.statements.servers.all().map((row) => row.server_id));
    return this.statements.toolboxes.all().map((row) => ({
      toolboxId: row.toolbox_id,
      name: row.name,
      serverIds: z
        .array(z.string())
        .parse(JSON.parse(row.server_ids))
        .filter((serverId) => known.has(serverId)),
      isDefault: row.is_default === 1,
    }));
  }

  /** Saves a named toolbox (a new one without an id); at most one is the default for new conversations. */
  saveToolbox(toolbox: { toolboxId?: string; name: string; serverIds: string[]; isDefault: boolean }): Toolbox {
    const name = toolbox.name.trim();
    if (!name) {
      throw new InvalidRequestError('A toolbox needs a name.');
    }
    for (const serverId of toolbox.serverIds) {
      if (!this.statements.server.get(serverId)) {
        throw new NotFoundError('MCP server', serverId);
      }
    }
    const toolboxId = toolbox.toolboxId ?? newId();
    this.write(() => {
      if (toolbox.isDefault) {
        this.statements.clearDefault.run();
      }
      this.statements.upsertToolbox.run(toolboxId, name, JSON.stringify(toolbox.serverIds), toolbox.isDefault ? 1 : 0);
    });
    return { toolboxId, name, serverIds: [...toolbox.serverIds], isDefault: toolbox.isDefault };
  }

  /** Removes a named toolbox (its servers stay in the catalog). */
  removeToolbox(toolboxId: string): void {
    this.write(() => this.statements.deleteToolbox.run(toolboxId));
  }

  /** The servers of the default toolbox, for a new conversation. */
  defaultServerIds(): string[] {
    return this.listToolboxes().find((toolbox) => toolbox.isDefault)?.serverIds ?? [];
  }

  /** What the transcript records for a choice: names, transports and a digest without secret values. */
  choose(serverIds: readonly string[]): ToolboxChoice {
    const rows = this.rows(serverIds);
    const servers = rows.map(({ row, spec }) => ({ serverId: row.server_id, name: row.name, transport: spec.transport }));
    const digest = createHash('sha256')
      .update(JSON.stringify(rows.map(({ row, spec }) => ({ name: row.name, ...spec, origin: undefined, description: undefined }))))
      .digest('hex');
    return { servers, digest };
  }

  /** The complete `McpServer[]` for a session: secrets opened, variables resolved in their own syntax. */
  resolve(serverIds: readonly string[], scope: VariableScope): McpServer[] {
    return this.rows(serverIds).map(({ row, spec }) => {
      const value = (entry: StoredEntry): string => {
        if ('value' in entry) {
          return resolveVariables(entry.value, spec.variables, scope);
        }
        const sealed = this.statements.secret.get(entry.secretId);
        if (!sealed) {
          throw new InvalidRequestError(`The secret ${entry.name} of MCP server "${row.name}" is missing; add the server again.`);
        }
        // A secret may itself be a reference (an imported `${GITHUB_TOKEN}`).
        return resolveVariables(this.secrets.open(sealed.ciphertext), spec.variables, scope);
      };
      const pairs = (entries: StoredEntry[]) => entries.map((entry) => ({ name: entry.name, value: value(entry) }));
      if (spec.transport === 'stdio') {
        return {
          name: row.name,
          command: resolveVariables(spec.command ?? '', spec.variables, scope),
          args: spec.args.map((arg) => resolveVariables(arg, spec.variables, scope)),
          env: pairs(spec.env),
        };
      }
      const url = resolveVariables(spec.url ?? '', spec.variables, scope);
      if (spec.bridge) {
        // Through the bridge: a stdio server whose environment (not its arguments) carries the URL and the headers.
        const headers = Object.fromEntries(pairs(spec.headers).map(({ name, value: headerValue }) => [name, headerValue]));
        return {
          name: row.name,
          command: this.bridgeLaunch.command,
          args: [...this.bridgeLaunch.args],
          env: [
            { name: 'BATON_BRIDGE_URL', value: url },
            { name: 'BATON_BRIDGE_TRANSPORT', value: spec.transport },
            { name: 'BATON_BRIDGE_HEADERS', value: JSON.stringify(headers) },
          ],
        };
      }
      return { type: spec.transport, name: row.name, url, headers: pairs(spec.headers) };
    });
  }

  /** True for a server as {@link resolve} gives one reached through Baton's bridge (a local program). */
  isBridged(server: McpServer): boolean {
    return (
      'command' in server && server.command === this.bridgeLaunch.command && server.args.join('\0') === this.bridgeLaunch.args.join('\0')
    );
  }

  private rows(serverIds: readonly string[]): Array<{ row: ServerRow; spec: StoredSpec }> {
    return serverIds.map((serverId) => {
      const row = this.statements.server.get(serverId);
      if (!row) {
        throw new NotFoundError('MCP server', serverId);
      }
      return { row, spec: storedSpecSchema.parse(JSON.parse(row.spec)) };
    });
  }

  private shown(row: ServerRow): CatalogServer {
    const spec = storedSpecSchema.parse(JSON.parse(row.spec));
    const entries = (list: StoredEntry[]) =>
      list.map((entry) =>
        'value' in entry ? { name: entry.name, value: entry.value, secret: false } : { name: entry.name, secret: true },
      );
    return catalogServerSchema.parse({
      serverId: row.server_id,
      name: row.name,
      description: spec.description,
      transport: spec.transport,
      ...(spec.command === undefined ? {} : { command: spec.command }),
      args: spec.args,
      ...(spec.url === undefined ? {} : { url: spec.url }),
      env: entries(spec.env),
      headers: entries(spec.headers),
      variables: spec.variables,
      origin: spec.origin,
      bridge: spec.bridge,
    });
  }
}

/**
 * A whole command line in Command ("node /path/index.js") would fail only when a session starts
 * (spawn … ENOENT): refused now, saying how to split it. A program whose own path has spaces (an
 * existing absolute path) is fine.
 */
function refuseCommandLine(command: string | undefined): void {
  if (command === undefined || !/\s/.test(command) || (path.isAbsolute(command) && existsOnThisComputer(command))) {
    return;
  }
  const split = splitCommandLine(command);
  if ('problem' in split) {
    throw new InvalidRequestError(`Command "${command}" cannot be started as it is: ${split.problem}`);
  }
  throw new InvalidRequestError(
    `Command takes the program only, not a whole command line: put "${split.command}" in Command and ${split.args.map((arg) => `"${arg}"`).join(', ')} in Arguments.`,
  );
}
