import { describe, expect, it } from 'vitest';
import { resolveVariables } from '../../../app/toolbox/variables.js';
import { dialectOfFile, knownPlaces, parseServerConfig, scanPlaces, type ImportedServer } from './importServers.js';
import { ServerImports } from './ServerImports.js';
import type { ToolboxCatalog } from './ToolboxCatalog.js';

const servers = (found: ImportedServer[]) => found.map((imported) => imported.server);

describe('importing MCP server configs', () => {
  it('Claude Desktop: mcpServers with command, args and env; a token is a secret', () => {
    const found = parseServerConfig(
      'claude-desktop',
      JSON.stringify({
        mcpServers: { github: { command: 'npx', args: ['-y', '@mcp/github'], env: { GITHUB_TOKEN: 'ghp_x', LOG_LEVEL: 'info' } } },
      }),
      '/c/claude_desktop_config.json',
    );
    expect(servers(found)).toEqual([
      {
        name: 'github',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@mcp/github'],
        env: [
          { name: 'GITHUB_TOKEN', value: 'ghp_x', secret: true },
          { name: 'LOG_LEVEL', value: 'info', secret: false },
        ],
        variables: 'none',
      },
    ]);
    expect(found[0]?.origin).toEqual({
      kind: 'import',
      dialect: 'claude-desktop',
      file: '/c/claude_desktop_config.json',
      key: 'mcpServers.github',
    });
  });

  it("Claude Code: .mcp.json types, ${VAR} references kept, and ~/.claude.json's top-level and per-project servers", () => {
    const project = parseServerConfig(
      'claude-code',
      JSON.stringify({
        mcpServers: {
          api: { type: 'http', url: 'https://api.test/mcp', headers: { Authorization: 'Bearer ${API_TOKEN}' } },
          feed: { type: 'sse', url: 'https://feed.test/events' },
        },
      }),
      '/w/.mcp.json',
    );
    expect(servers(project)).toEqual([
      {
        name: 'api',
        transport: 'http',
        url: 'https://api.test/mcp',
        headers: [{ name: 'Authorization', value: 'Bearer ${API_TOKEN}', secret: true }],
        variables: 'claude',
      },
      { name: 'feed', transport: 'sse', url: 'https://feed.test/events', headers: [], variables: 'claude' },
    ]);
    const user = parseServerConfig(
      'claude-code',
      JSON.stringify({
        mcpServers: { one: { command: 'one' } },
        projects: { '/abs/repo': { mcpServers: { two: { command: 'two', args: ['--x'] } } } },
      }),
      '/h/.claude.json',
    );
    expect(user.map((imported) => imported.origin.key)).toEqual(['mcpServers.one', 'projects["/abs/repo"].mcpServers.two']);
    // Resolved only when a session is prepared: set, default, unset.
    expect(resolveVariables('Bearer ${API_TOKEN}', 'claude', { env: { API_TOKEN: 't0k' }, workspaceFolder: '/w', userHome: '/h' })).toBe(
      'Bearer t0k',
    );
    expect(resolveVariables('${PORT:-8080}', 'claude', { env: {}, workspaceFolder: '/w', userHome: '/h' })).toBe('8080');
    expect(resolveVariables('${MISSING}', 'claude', { env: {}, workspaceFolder: '/w', userHome: '/h' })).toBe('${MISSING}');
  });

  it('Cursor: ${env:NAME}, ${userHome} and ${workspaceFolder}; a url server', () => {
    const found = parseServerConfig(
      'cursor',
      JSON.stringify({
        mcpServers: {
          fs: { command: 'mcp-fs', args: ['${workspaceFolder}', '${userHome}/notes'], env: { SERVICE_KEY: '${env:SERVICE_KEY}' } },
          remote: { url: 'https://r.test/sse' },
        },
      }),
      '/h/.cursor/mcp.json',
    );
    expect(servers(found)[1]).toMatchObject({ transport: 'sse', url: 'https://r.test/sse', variables: 'cursor' });
    const scope = { env: { SERVICE_KEY: 'k' }, workspaceFolder: '/w', userHome: '/h' };
    expect(servers(found)[0]?.args?.map((arg) => resolveVariables(arg, 'cursor', scope))).toEqual(['/w', '/h/notes']);
    expect(resolveVariables('${env:SERVICE_KEY}', 'cursor', scope)).toBe('k');
  });

  it('VS Code: servers with a required type, and inputs that become secrets the person fills in', () => {
    const text = `{
      // VS Code allows comments
      "inputs": [{ "type": "promptString", "id": "api-key", "description": "Perplexity API key", "password": true }],
      "servers": {
        "perplexity": { "type": "stdio", "command": "npx", "args": ["-y", "server-perplexity"], "env": { "PERPLEXITY_API_KEY": "\${input:api-key}", "HOME_DIR": "\${userHome}" } },
        "docs": { "type": "http", "url": "https://docs.test/mcp" },
      },
    }`;
    const found = parseServerConfig('vscode', text, '/w/.vscode/mcp.json');
    expect(found[0]?.needsInput).toEqual([{ inputId: 'api-key', description: 'Perplexity API key', password: true }]);
    expect(found[0]?.server.env).toContainEqual({ name: 'PERPLEXITY_API_KEY', value: '${input:api-key}', secret: true });
    expect(servers(found)[1]).toMatchObject({ name: 'docs', transport: 'http', variables: 'vscode' });
  });

  it('Windsurf: serverUrl for remote servers, ${env:VAR} references', () => {
    const found = parseServerConfig(
      'windsurf',
      JSON.stringify({
        mcpServers: {
          remote: { serverUrl: 'https://w.test/mcp', headers: { 'X-Api-Key': '${env:W_KEY}' } },
          local: { command: 'w', args: [] },
        },
      }),
      '/h/.codeium/windsurf/mcp_config.json',
    );
    expect(servers(found)).toMatchObject([
      {
        name: 'remote',
        transport: 'http',
        url: 'https://w.test/mcp',
        headers: [{ name: 'X-Api-Key', value: '${env:W_KEY}', secret: true }],
        variables: 'windsurf',
      },
      { name: 'local', transport: 'stdio', command: 'w' },
    ]);
  });

  it('Zed: context_servers in the current shape, the older nested command, and url servers', () => {
    const text = `{ "theme": "One Dark", "context_servers": { "new": { "command": "srv", "args": ["a"], "env": {} }, "old": { "source": "custom", "command": { "path": "/bin/old", "args": ["b"], "env": { "TOKEN": "t" } } }, "web": { "url": "https://z.test/mcp", "headers": { "Authorization": "Bearer z" } } } }`;
    expect(servers(parseServerConfig('zed', text, '/h/.config/zed/settings.json'))).toEqual([
      { name: 'new', transport: 'stdio', command: 'srv', args: ['a'], env: [], variables: 'none' },
      {
        name: 'old',
        transport: 'stdio',
        command: '/bin/old',
        args: ['b'],
        env: [{ name: 'TOKEN', value: 't', secret: true }],
        variables: 'none',
      },
      {
        name: 'web',
        transport: 'http',
        url: 'https://z.test/mcp',
        headers: [{ name: 'Authorization', value: 'Bearer z', secret: true }],
        variables: 'none',
      },
    ]);
  });

  it('Codex: [mcp_servers.*] with env, env_vars, url, http_headers, env_http_headers and bearer_token_env_var; disabled servers left out', () => {
    const text = [
      '[mcp_servers.local]',
      'command = "srv"',
      'args = ["--stdio"]',
      'env = { MODE = "fast" }',
      'env_vars = ["GITHUB_TOKEN"]',
      'cwd = "/somewhere"',
      '',
      '[mcp_servers.remote]',
      'url = "https://c.test/mcp"',
      'bearer_token_env_var = "REMOTE_TOKEN"',
      'http_headers = { "X-Team" = "blue" }',
      'env_http_headers = { "X-Key" = "REMOTE_KEY" }',
      '',
      '[mcp_servers.off]',
      'command = "off"',
      'enabled = false',
    ].join('\n');
    const found = parseServerConfig('codex', text, '/h/.codex/config.toml');
    expect(servers(found)).toEqual([
      {
        name: 'local',
        transport: 'stdio',
        command: 'srv',
        args: ['--stdio'],
        env: [
          { name: 'MODE', value: 'fast', secret: false },
          { name: 'GITHUB_TOKEN', value: '${GITHUB_TOKEN}', secret: true },
        ],
        variables: 'claude',
      },
      {
        name: 'remote',
        transport: 'http',
        url: 'https://c.test/mcp',
        headers: [
          { name: 'X-Team', value: 'blue', secret: false },
          { name: 'X-Key', value: '${REMOTE_KEY}', secret: true },
          { name: 'Authorization', value: 'Bearer ${REMOTE_TOKEN}', secret: true },
        ],
        variables: 'claude',
      },
    ]);
    expect(found[0]?.notCarried).toEqual(['cwd']);
  });

  it('Gemini: httpUrl is streamable HTTP, url is SSE, $VAR references', () => {
    const found = parseServerConfig(
      'gemini',
      JSON.stringify({
        mcpServers: {
          stream: { httpUrl: 'https://g.test/mcp', headers: { Authorization: 'Bearer $G_TOKEN' } },
          events: { url: 'https://g.test/sse' },
          local: { command: 'g', args: ['$HOME/x'], includeTools: ['a'] },
        },
      }),
      '/h/.gemini/settings.json',
    );
    expect(servers(found)).toMatchObject([
      { name: 'stream', transport: 'http', url: 'https://g.test/mcp', variables: 'gemini' },
      { name: 'events', transport: 'sse', url: 'https://g.test/sse' },
      { name: 'local', transport: 'stdio', command: 'g' },
    ]);
    expect(found[2]?.notCarried).toEqual(['includeTools']);
    expect(
      resolveVariables('Bearer $G_TOKEN and ${G_TOKEN}', 'gemini', { env: { G_TOKEN: 'g' }, workspaceFolder: '/w', userHome: '/h' }),
    ).toBe('Bearer g and g');
  });

  it('a broken file names its line and column, and gives nothing', () => {
    expect(() =>
      parseServerConfig('cursor', '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}', '/h/.cursor/mcp.json'),
    ).toThrow('/h/.cursor/mcp.json, line 4, column 5: CommaExpected. Nothing was imported from it.');
    expect(() => parseServerConfig('codex', '[mcp_servers.a]\ncommand = \n', '/h/.codex/config.toml')).toThrow(
      /\/h\/\.codex\/config\.toml, line 2, column \d+: /,
    );
  });

  it('scanning offers a server seen in two files once, reports a broken file, and skips missing ones', async () => {
    const files: Record<string, string> = {
      '/h/.cursor/mcp.json': JSON.stringify({ mcpServers: { same: { command: 'same' } } }),
      '/w/.cursor/mcp.json': JSON.stringify({ mcpServers: { same: { command: 'same' }, other: { command: 'other' } } }),
      '/h/.codex/config.toml': '[mcp_servers.x\n',
    };
    const result = await scanPlaces(
      [
        { dialect: 'cursor', file: '/h/.cursor/mcp.json' },
        { dialect: 'cursor', file: '/w/.cursor/mcp.json' },
        { dialect: 'codex', file: '/h/.codex/config.toml' },
        { dialect: 'gemini', file: '/h/.gemini/settings.json' },
      ],
      (file) => Promise.resolve(files[file]),
    );
    expect(result.found.map((imported) => imported.server.name)).toEqual(['same', 'other']);
    expect(result.problems).toEqual([
      { file: '/h/.codex/config.toml', message: expect.stringMatching(/^\/h\/\.codex\/config\.toml, line 1, column \d+/) },
    ]);
  });

  it("knows the usual places on Linux, macOS and Windows, and the working folder's", () => {
    const linux = knownPlaces({ home: '/home/p', platform: 'linux', cwd: '/w' }).map((place) => place.file);
    expect(linux).toEqual(
      expect.arrayContaining([
        '/home/p/.config/Claude/claude_desktop_config.json',
        '/home/p/.claude.json',
        '/home/p/.config/Code/User/mcp.json',
        '/home/p/.config/zed/settings.json',
        '/w/.mcp.json',
        '/w/.vscode/mcp.json',
      ]),
    );
    const mac = knownPlaces({ home: '/Users/p', platform: 'darwin' }).map((place) => place.file);
    expect(mac).toContain('/Users/p/Library/Application Support/Claude/claude_desktop_config.json');
    const windows = knownPlaces({ home: 'C:/Users/p', platform: 'win32', appData: 'C:/Users/p/AppData/Roaming' }).map((place) =>
      place.file.replaceAll('\\', '/'),
    );
    expect(windows).toContain('C:/Users/p/AppData/Roaming/Claude/claude_desktop_config.json');
    expect(dialectOfFile('/x/mcp.json', '{"servers":{}}')).toBe('vscode');
    expect(dialectOfFile('/x/settings.json', '{"context_servers":{}}')).toBe('zed');
  });

  it('reads the files through the machine: one missing is skipped, one too large or unreadable is reported with why', async () => {
    const files: Record<string, Buffer | Error> = {
      '/h/.cursor/mcp.json': Buffer.from(JSON.stringify({ mcpServers: { kept: { command: 'kept' } } })),
      '/h/.codex/config.toml': Buffer.alloc(5 * 1024 * 1024, 'x'),
      '/h/.gemini/settings.json': Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' }),
    };
    const machine = {
      readFile: (file: string, maxBytes: number) => {
        const found = files[file] ?? Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
        return found instanceof Error
          ? Promise.reject(found)
          : Promise.resolve({ data: found.subarray(0, maxBytes), tooLarge: found.length > maxBytes });
      },
    };
    const imports = new ServerImports({ listServers: () => [] } as unknown as ToolboxCatalog, '/h', undefined, machine);
    const { candidates, problems } = await imports.scan({});
    expect(candidates.map((candidate) => candidate.name)).toEqual(['kept']);
    expect(problems).toEqual([
      { file: '/h/.codex/config.toml', message: '/h/.codex/config.toml could not be read: it is larger than 4 MiB.' },
      { file: '/h/.gemini/settings.json', message: '/h/.gemini/settings.json could not be read: EACCES: permission denied' },
    ]);
    await expect(imports.scan({ file: '/h/gone.json' })).rejects.toThrow('/h/gone.json could not be read: it does not exist.');
  });
});
