/**
 * Reading the MCP server configs people already have, in each client's own dialect, into
 * catalog servers. Only reads: a config file found in a known place (or a cloned repository's
 * `.mcp.json`) is shown, never run. Variable references stay as written, in their file's syntax,
 * resolved when a session is prepared. A broken file is an error with its line and column, and
 * contributes nothing.
 */
import path from 'node:path';
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { parse as parseToml, TomlError } from 'smol-toml';
import { InvalidRequestError } from '../../../app/errors.js';
import {
  looksSecret,
  type EntryInput,
  type ServerInput,
  type ServerOrigin,
  type Transport,
  type VariableSyntax,
} from '../../../app/toolbox/catalog.js';

/** The config dialects Baton reads. */
export const DIALECTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode', 'windsurf', 'zed', 'codex', 'gemini'] as const;
/** One of {@link DIALECTS}. */
export type Dialect = (typeof DIALECTS)[number];

/** A server read from a file, ready to be added (with the inputs it still needs from the person). */
export type ImportedServer = {
  server: ServerInput;
  origin: Extract<ServerOrigin, { kind: 'import' }>;
  /** Values the person must type in before it can be added (VS Code `inputs`): entry names by input id. */
  needsInput: Array<{ inputId: string; description: string; password: boolean }>;
  /** Settings of the file Baton does not carry over (a working folder, tool filters). */
  notCarried: string[];
};

/** Where a file's text broke. */
export class ConfigSyntaxError extends InvalidRequestError {
  constructor(file: string, line: number, column: number, reason: string) {
    super(`${file}, line ${line}, column ${column}: ${reason}. Nothing was imported from it.`);
  }
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
const record = (value: unknown): Array<[string, string]> =>
  isObject(value) ? Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string') : [];
const entries = (pairs: Array<[string, string]>): EntryInput[] =>
  pairs.map(([name, value]) => ({ name, value, secret: looksSecret(name) }));

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const lines = before.split('\n');
  return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 };
}

/** Parses JSON with comments; a syntax error names its line and column. */
function readJsonc(text: string, file: string): Json {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  const first = errors[0];
  if (first) {
    const { line, column } = lineAndColumn(text, first.offset);
    throw new ConfigSyntaxError(file, line, column, printParseErrorCode(first.error));
  }
  if (!isObject(value)) {
    throw new ConfigSyntaxError(file, 1, 1, 'the file is not a JSON object');
  }
  return value;
}

function readTomlFile(text: string, file: string): Json {
  try {
    return parseToml(text);
  } catch (error) {
    if (error instanceof TomlError) {
      throw new ConfigSyntaxError(
        file,
        error.line,
        error.column,
        error.message.split('\n')[0]?.replace(/^Invalid TOML document: /, '') ?? 'invalid TOML',
      );
    }
    throw error;
  }
}

/** An http(s) URL's transport when the dialect does not say: `/sse` endpoints are SSE, the rest streamable HTTP. */
const guessTransport = (url: string): Transport => (/\/sse\/?(\?|$)/.test(url) ? 'sse' : 'http');

/** One server of the common `{command, args, env}` / `{url, headers}` shape. */
function commonServer(
  name: string,
  raw: Json,
  variables: VariableSyntax,
  options: { urlKey?: string; transport?: Transport } = {},
): ServerInput | undefined {
  const url = typeof raw[options.urlKey ?? 'url'] === 'string' ? (raw[options.urlKey ?? 'url'] as string) : undefined;
  if (typeof raw.command === 'string') {
    return { name, transport: 'stdio', command: raw.command, args: strings(raw.args), env: entries(record(raw.env)), variables };
  }
  if (url) {
    return { name, transport: options.transport ?? guessTransport(url), url, headers: entries(record(raw.headers)), variables };
  }
  return undefined;
}

function fromMap(
  map: unknown,
  keyPrefix: string,
  origin: (key: string) => ImportedServer['origin'],
  build: (name: string, raw: Json) => ServerInput | undefined,
): ImportedServer[] {
  if (!isObject(map)) {
    return [];
  }
  return Object.entries(map).flatMap(([name, raw]) => {
    if (!isObject(raw)) {
      return [];
    }
    const server = build(name, raw);
    return server ? [{ server, origin: origin(`${keyPrefix}.${name}`), needsInput: [], notCarried: [] }] : [];
  });
}

/** Reads one file in one dialect. Throws {@link ConfigSyntaxError} for a broken file. */
export function parseServerConfig(dialect: Dialect, text: string, file: string): ImportedServer[] {
  const origin = (key: string): ImportedServer['origin'] => ({ kind: 'import', dialect, file, key });
  switch (dialect) {
    case 'claude-desktop':
      return fromMap(readJsonc(text, file).mcpServers, 'mcpServers', origin, (name, raw) => commonServer(name, raw, 'none'));
    case 'claude-code': {
      const json = readJsonc(text, file);
      const build = (name: string, raw: Json): ServerInput | undefined => {
        const type = raw.type === 'http' || raw.type === 'sse' ? raw.type : undefined;
        return commonServer(name, raw, 'claude', type ? { transport: type } : {});
      };
      const projects = isObject(json.projects) ? Object.entries(json.projects) : [];
      return [
        ...fromMap(json.mcpServers, 'mcpServers', origin, build),
        ...projects.flatMap(([project, settings]) =>
          isObject(settings) ? fromMap(settings.mcpServers, `projects["${project}"].mcpServers`, origin, build) : [],
        ),
      ];
    }
    case 'cursor':
      return fromMap(readJsonc(text, file).mcpServers, 'mcpServers', origin, (name, raw) => commonServer(name, raw, 'cursor'));
    case 'windsurf':
      return fromMap(readJsonc(text, file).mcpServers, 'mcpServers', origin, (name, raw) =>
        commonServer(name, raw, 'windsurf', { urlKey: typeof raw.serverUrl === 'string' ? 'serverUrl' : 'url' }),
      );
    case 'vscode':
      return vscodeServers(readJsonc(text, file), origin);
    case 'zed':
      return fromMap(readJsonc(text, file).context_servers, 'context_servers', origin, (name, raw) => {
        // Older settings nest the command: { "command": { "path", "args", "env" } }.
        const nested = isObject(raw.command) ? raw.command : undefined;
        if (nested && typeof nested.path === 'string') {
          return {
            name,
            transport: 'stdio',
            command: nested.path,
            args: strings(nested.args),
            env: entries(record(nested.env)),
            variables: 'none',
          };
        }
        return commonServer(name, raw, 'none');
      });
    case 'codex':
      return codexServers(readTomlFile(text, file), origin);
    case 'gemini':
      return fromMap(readJsonc(text, file).mcpServers, 'mcpServers', origin, (name, raw) => {
        if (typeof raw.httpUrl === 'string') {
          return { name, transport: 'http', url: raw.httpUrl, headers: entries(record(raw.headers)), variables: 'gemini' };
        }
        // Gemini's `url` is an SSE endpoint.
        return commonServer(name, raw, 'gemini', { transport: 'sse' });
      }).map((imported) => ({ ...imported, notCarried: geminiNotCarried(readJsonc(text, file).mcpServers, imported.server.name) }));
  }
}

function geminiNotCarried(map: unknown, name: string): string[] {
  const raw = isObject(map) && isObject(map[name]) ? map[name] : {};
  return ['cwd', 'includeTools', 'excludeTools', 'timeout', 'trust'].filter((key) => key in raw);
}

function vscodeServers(json: Json, origin: (key: string) => ImportedServer['origin']): ImportedServer[] {
  const inputs = new Map(
    (Array.isArray(json.inputs) ? json.inputs : [])
      .filter(isObject)
      .flatMap((input) => (typeof input.id === 'string' ? [[input.id, input] as const] : [])),
  );
  const servers = isObject(json.servers) ? json.servers : {};
  return Object.entries(servers).flatMap(([name, raw]) => {
    if (!isObject(raw)) {
      return [];
    }
    const type = raw.type === 'http' || raw.type === 'sse' ? raw.type : undefined;
    const server = commonServer(name, raw, 'vscode', type ? { transport: type } : {});
    if (!server) {
      return [];
    }
    // `${input:id}` values are asked of the person and kept as secrets.
    const needsInput: ImportedServer['needsInput'] = [];
    const mark = (list: EntryInput[] | undefined): EntryInput[] =>
      (list ?? []).map((entry) => {
        const inputId = /\$\{input:([^}]+)\}/.exec(entry.value)?.[1];
        if (!inputId) {
          return entry;
        }
        const input = inputs.get(inputId);
        needsInput.push({
          inputId,
          description: typeof input?.description === 'string' ? input.description : inputId,
          password: input?.password === true,
        });
        return { ...entry, secret: true };
      });
    const marked: ServerInput =
      server.transport === 'stdio' ? { ...server, env: mark(server.env) } : { ...server, headers: mark(server.headers) };
    return [{ server: marked, origin: origin(`servers.${name}`), needsInput, notCarried: [] }];
  });
}

function codexServers(toml: Json, origin: (key: string) => ImportedServer['origin']): ImportedServer[] {
  const table = isObject(toml.mcp_servers) ? toml.mcp_servers : {};
  return Object.entries(table).flatMap(([name, raw]): ImportedServer[] => {
    if (!isObject(raw) || raw.enabled === false) {
      return [];
    }
    const notCarried = ['cwd', 'enabled_tools', 'disabled_tools', 'startup_timeout_sec', 'tool_timeout_sec'].filter((key) => key in raw);
    // Names of variables Codex passes through: references resolved when a session is prepared.
    const passed = strings(raw.env_vars).map((variable): [string, string] => [variable, `\${${variable}}`]);
    if (typeof raw.command === 'string') {
      const env = [...record(raw.env), ...passed];
      return [
        {
          server: { name, transport: 'stdio', command: raw.command, args: strings(raw.args), env: entries(env), variables: 'claude' },
          origin: origin(`mcp_servers.${name}`),
          needsInput: [],
          notCarried,
        },
      ];
    }
    if (typeof raw.url === 'string') {
      const headers: Array<[string, string]> = [
        ...record(raw.http_headers),
        ...record(raw.env_http_headers).map(([header, variable]): [string, string] => [header, `\${${variable}}`]),
        ...(typeof raw.bearer_token_env_var === 'string'
          ? [['Authorization', `Bearer \${${raw.bearer_token_env_var}}`] as [string, string]]
          : []),
      ];
      return [
        {
          server: { name, transport: 'http', url: raw.url, headers: entries(headers), variables: 'claude' },
          origin: origin(`mcp_servers.${name}`),
          needsInput: [],
          notCarried,
        },
      ];
    }
    return [];
  });
}

/** A file where a dialect's config usually lives. */
export type KnownPlace = { dialect: Dialect; file: string };

/** The usual places of each dialect's config on this platform, for this person and (when given) this working folder. */
export function knownPlaces(options: { home: string; platform: NodeJS.Platform; appData?: string; cwd?: string }): KnownPlace[] {
  const { home, platform, cwd } = options;
  const appData = options.appData ?? path.join(home, 'AppData', 'Roaming');
  const config =
    platform === 'darwin' ? path.join(home, 'Library', 'Application Support') : platform === 'win32' ? appData : path.join(home, '.config');
  const places: KnownPlace[] = [
    { dialect: 'claude-desktop', file: path.join(config, 'Claude', 'claude_desktop_config.json') },
    { dialect: 'claude-code', file: path.join(home, '.claude.json') },
    { dialect: 'cursor', file: path.join(home, '.cursor', 'mcp.json') },
    { dialect: 'vscode', file: path.join(config, 'Code', 'User', 'mcp.json') },
    { dialect: 'windsurf', file: path.join(home, '.codeium', 'windsurf', 'mcp_config.json') },
    {
      dialect: 'zed',
      file: platform === 'win32' ? path.join(appData, 'Zed', 'settings.json') : path.join(home, '.config', 'zed', 'settings.json'),
    },
    { dialect: 'codex', file: path.join(home, '.codex', 'config.toml') },
    { dialect: 'gemini', file: path.join(home, '.gemini', 'settings.json') },
  ];
  if (cwd) {
    places.push(
      { dialect: 'claude-code', file: path.join(cwd, '.mcp.json') },
      { dialect: 'cursor', file: path.join(cwd, '.cursor', 'mcp.json') },
      { dialect: 'vscode', file: path.join(cwd, '.vscode', 'mcp.json') },
      { dialect: 'codex', file: path.join(cwd, '.codex', 'config.toml') },
      { dialect: 'gemini', file: path.join(cwd, '.gemini', 'settings.json') },
    );
  }
  return places;
}

/** The dialect of a file the person picked, from its name (and, for `settings.json`, its content). */
export function dialectOfFile(file: string, text: string): Dialect {
  const base = path.basename(file);
  if (base === 'claude_desktop_config.json') {
    return 'claude-desktop';
  }
  if (base === '.mcp.json' || base === '.claude.json') {
    return 'claude-code';
  }
  if (base === 'mcp_config.json') {
    return 'windsurf';
  }
  if (base.endsWith('.toml')) {
    return 'codex';
  }
  if (base === 'mcp.json') {
    return /"servers"\s*:/.test(text) ? 'vscode' : 'cursor';
  }
  if (/"context_servers"\s*:/.test(text)) {
    return 'zed';
  }
  if (/"httpUrl"\s*:/.test(text) || file.includes('.gemini')) {
    return 'gemini';
  }
  return 'claude-desktop';
}

/** What scanning found: servers (each offered once) and the files that could not be read. */
export type ScanResult = { found: ImportedServer[]; problems: Array<{ file: string; message: string }> };

/**
 * Reads every place through `read` (a missing file is undefined, and skipped quietly; one that
 * cannot be read otherwise throws, and is reported); a server seen in several files is offered once.
 */
export async function scanPlaces(places: readonly KnownPlace[], read: (file: string) => Promise<string | undefined>): Promise<ScanResult> {
  const found: ImportedServer[] = [];
  const problems: ScanResult['problems'] = [];
  const seen = new Set<string>();
  for (const { dialect, file } of places) {
    try {
      const text = await read(file);
      if (text === undefined) {
        continue;
      }
      for (const imported of parseServerConfig(dialect, text, file)) {
        const { name, ...spec } = imported.server;
        const key = `${name.toLowerCase()}\u0000${JSON.stringify(spec)}`;
        if (!seen.has(key)) {
          seen.add(key);
          found.push(imported);
        }
      }
    } catch (error) {
      problems.push({ file, message: error instanceof Error ? error.message : String(error) });
    }
  }
  return { found, problems };
}
