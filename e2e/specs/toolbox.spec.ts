/**
 * The toolbox in a real browser: a server added in dialog "Toolbox" with a secret header, an SSE
 * server refused plainly for Codex, then reaching Codex through Baton's local bridge; servers
 * imported from a config the person already has, and a broken one named by line.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { allAgentsHome } from '../fixtures/agentSetups.js';
import { tempDir } from '../fixtures/agentEnv.js';
import { expect, test, type StartHost } from '../fixtures/batonTest.js';
import { startMcpHttpServer, type McpHttpServer } from '../fixtures/mcpHttpServer.js';
import { chooseAgent } from '../fixtures/chooseAgent.js';

const TOKEN = 'feed-token-31c9';
let lookup: McpHttpServer;

test.beforeEach(async () => {
  lookup = await startMcpHttpServer({ token: TOKEN });
});

test.afterEach(async () => {
  await lookup.close();
});

async function start(page: Page, startHost: StartHost, agentLabel: string, env?: Record<string, string>): Promise<void> {
  const host = await startHost('e2e-toolbox', env);
  await page.goto(host.url);
  await chooseAgent(page, agentLabel);
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-work'));
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
}

test('an SSE server is refused for Codex in plain words; through the local bridge its tool reaches Codex', async ({
  page,
  stub,
  startHost,
}) => {
  await start(page, startHost, 'Codex');
  await page.getByRole('button', { name: 'Toolbox', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Toolbox' });
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await dialog.getByRole('textbox', { name: 'Name' }).fill('ssefeed');
  await dialog.getByRole('combobox', { name: 'Transport' }).selectOption('sse');
  await dialog.getByRole('textbox', { name: 'URL' }).fill(lookup.sseUrl);
  await dialog.getByRole('button', { name: 'Add header' }).click();
  await dialog.getByRole('textbox', { name: 'Header name' }).fill('Authorization');
  await dialog.getByRole('textbox', { name: 'Value' }).fill(`Bearer ${TOKEN}`);
  await dialog.getByRole('checkbox', { name: 'Secret' }).check();
  await dialog.getByRole('button', { name: 'Save server' }).click();
  // A saved server is checked for the conversation the dialog was opened from.
  await expect(dialog.getByRole('checkbox', { name: 'ssefeed', exact: true })).toBeChecked();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();

  await send(page, 'use the feed [tool:lookup]');
  await expect(page.getByRole('alert').filter({ hasText: 'Codex cannot take the MCP server "ssefeed" over SSE' })).toBeVisible();
  expect(stub.modelRequests()).toEqual([]);

  await page.getByRole('button', { name: 'Toolbox', exact: true }).click();
  await dialog.getByRole('checkbox', { name: 'Run ssefeed through a local bridge' }).click();
  await expect(dialog.getByRole('checkbox', { name: 'Run ssefeed through a local bridge' })).toBeChecked();
  await expect(dialog.getByText('bridged')).toBeVisible();
  await expect(dialog.getByRole('list', { name: 'Tools this agent sees' })).toContainText('ssefeed: lookup');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();

  await send(page, 'use the feed now [tool:lookup]');
  const permission = page.getByRole('group', { name: /^Permission: / });
  // A bounded wait, so that a question that never comes fails here rather than at the test's end.
  await permission.getByRole('button', { name: 'Allow', exact: true }).click({ timeout: 60_000 });
  await expect(page.getByRole('article', { name: /^Codex/ }).last()).toContainText('Looked up: hello from baton');
  const request = stub.modelRequests().find((candidate) => candidate.userTexts.some((text) => text.includes('use the feed now')));
  expect(request?.toolNames).toContain('mcp__ssefeed/lookup');
  expect(lookup.authorizations.every((authorization) => authorization === `Bearer ${TOKEN}`)).toBe(true);
});

test('servers from a config you already have are imported when you choose them; a broken file is named by line', async ({
  page,
  stub,
  startHost,
}) => {
  const env = allAgentsHome(stub.url);
  mkdirSync(path.join(env.HOME!, '.cursor'), { recursive: true });
  writeFileSync(
    path.join(env.HOME!, '.cursor', 'mcp.json'),
    JSON.stringify({ mcpServers: { 'cursor-web': { url: lookup.httpUrl, headers: { Authorization: `Bearer ${TOKEN}` } } } }),
  );
  mkdirSync(path.join(env.HOME!, '.gemini'), { recursive: true });
  writeFileSync(
    path.join(env.HOME!, '.gemini', 'settings.json'),
    '{\n  "mcpServers": {\n    "x": { "command": "x" }\n    "y": {}\n  }\n}\n',
  );
  // The test env's own Gemini settings were in that file; Gemini is not used here.
  await start(page, startHost, 'Claude', env);
  await page.getByRole('button', { name: 'Toolbox', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Toolbox' });
  await dialog.getByRole('button', { name: 'Import servers' }).click();
  const found = dialog.getByRole('region', { name: 'Servers found' });
  await expect(found.getByRole('alert')).toContainText('settings.json, line 4, column 5');
  await expect(found).toContainText('kept encrypted: Authorization');
  await found.getByRole('checkbox', { name: 'cursor-web', exact: true }).check();
  await found.getByRole('button', { name: 'Import selected' }).click();
  await expect(dialog.getByRole('list', { name: 'Servers' }).getByRole('checkbox', { name: 'cursor-web', exact: true })).toBeVisible();
  await expect(dialog.getByRole('list', { name: 'Servers' })).toContainText('from ');

  // A named set of the checked servers, the default for new conversations.
  await dialog.getByRole('list', { name: 'Servers' }).getByRole('checkbox', { name: 'cursor-web', exact: true }).check();
  await dialog.getByRole('textbox', { name: 'Set name' }).fill('Web research');
  await dialog.getByRole('checkbox', { name: 'Default for new conversations' }).check();
  await dialog.getByRole('button', { name: 'Save set' }).click();
  await expect(dialog.getByRole('combobox', { name: 'Toolbox set' })).toContainText('Web research (default)');
});

test('a switch to pi, which uses no tools, is flagged at the switch; the message goes without them this time, and the toolbox stays for Claude', async ({
  page,
  startHost,
}) => {
  await start(page, startHost, 'Claude');
  await page.getByRole('button', { name: 'Toolbox', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Toolbox' });
  await dialog.getByRole('button', { name: 'Add server' }).click();
  await dialog.getByRole('textbox', { name: 'Name' }).fill('feed');
  await dialog.getByRole('combobox', { name: 'Transport' }).selectOption('http');
  await dialog.getByRole('textbox', { name: 'URL' }).fill(lookup.httpUrl);
  await dialog.getByRole('button', { name: 'Add header' }).click();
  await dialog.getByRole('textbox', { name: 'Header name' }).fill('Authorization');
  await dialog.getByRole('textbox', { name: 'Value' }).fill(`Bearer ${TOKEN}`);
  await dialog.getByRole('button', { name: 'Save server' }).click();
  await expect(dialog.getByRole('checkbox', { name: 'feed', exact: true })).toBeChecked();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await send(page, 'hello Claude');
  await expect(page.getByRole('article', { name: /^Claude/ })).toContainText('hello Claude');

  // The switch: said at once, with the ways out, before anything is sent.
  await chooseAgent(page, 'pi');
  const warning = page.getByRole('alert').filter({ hasText: 'pi uses no tools from your toolbox' });
  await expect(warning).toContainText('the tool server this conversation uses would be missing for it');
  const ways = warning.getByRole('group', { name: 'Ways to send it' });
  // The Toolbox says what pi sees: none of them.
  await ways.getByRole('button', { name: 'Open Toolbox' }).click();
  await expect(dialog.getByRole('region', { name: 'Tools' })).toContainText(
    'None: your next message goes to pi, which uses no MCP servers, so none of these reach it.',
  );
  await dialog.getByRole('button', { name: 'Close' }).click();
  // Sent as it is, it is refused (nothing is left out silently), and the message stays in the box.
  await send(page, 'hello pi');
  await expect(page.getByRole('alert').filter({ hasText: 'choose no tools in Toolbox for it' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveValue('hello pi');
  await ways.getByRole('button', { name: 'Send without these tools this time' }).click();
  await expect(page.getByRole('article', { name: /^pi/ }).last()).toContainText('hello pi');
  await expect(page.getByRole('article', { name: 'You' }).last()).toContainText('sent without your tools');
  // Back to Claude: the toolbox is still the conversation's.
  await chooseAgent(page, 'Claude');
  await expect(page.getByRole('alert').filter({ hasText: 'uses no tools from your toolbox' })).toHaveCount(0);
  await page.getByRole('button', { name: 'Toolbox', exact: true }).click();
  await expect(dialog.getByRole('checkbox', { name: 'feed', exact: true })).toBeChecked();
});
