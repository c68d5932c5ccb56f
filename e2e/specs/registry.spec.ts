/**
 * Every ACP agent, in the page. With no network, Settings › Agents and combobox "Agent" list every
 * agent of the registry snapshot Baton ships, "copilot" finds GitHub Copilot CLI, and a missing
 * agent offers "Install <name> <version>". From a registry on 127.0.0.1: two agents new to Baton
 * (Kilo and Cline, real npm packages at the versions the registry names) are installed from the
 * picker, answer against the model stub, and are each handed a conversation by the switch;
 * GitHub Copilot CLI starts, shows its version and its log-in; the fake agent packed as a
 * `binary` agent installs with its checksum checked and answers, while a wrong checksum and a
 * missing archive each fail saying why; a version the npm registry does not have offers the
 * nearest newer one ("Install Fake Next 1.0.0 instead?"), which installs once agreed and answers.
 */
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { allAgentsHome, REGISTRY_TEST_AGENTS } from '../fixtures/agentSetups.js';
import { tempDir } from '../fixtures/agentEnv.js';
import { fakeAgentEntries, makeTarGz, sha256Of } from '../fixtures/archives.js';
import { chooseAgent } from '../fixtures/chooseAgent.js';
import { startModelStub, type ModelStub } from '../fixtures/modelStub.js';
import { packFakeAgent } from '../fixtures/fakeAgentPackage.js';
import { publishNpmPackage, registryEntry, startRegistryServer, type RegistryServer } from '../fixtures/registryServer.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';
import { expectNoAxeFindingsInBothThemes } from '../fixtures/axe.js';

let stub: ModelStub;
let registry: RegistryServer;
const hosts: WebHost[] = [];

// axe-core is injected as an inline script, which the page's own policy rightly refuses.
test.use({ bypassCSP: true });

const INSTALL_TIMEOUT = 240_000;

test.beforeAll(async () => {
  stub = await startModelStub();
  registry = await startRegistryServer({ version: '1.0.0', agents: [], extensions: [] });
  const fake = makeTarGz(fakeAgentEntries(tempDir('registry-fake-data')));
  registry.put('/archives/fake.tar.gz', fake);
  const platform = `${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}`;
  const binary = (id: string, name: string, archive: string, sha256: string) =>
    registryEntry(id, name, { binary: { [platform]: { archive: `${registry.url}${archive}`, cmd: './bin/fake-acp', sha256 } } });
  const npx = (id: string, name: string, agent: keyof typeof REGISTRY_TEST_AGENTS) =>
    registryEntry(
      id,
      name,
      {
        npx: {
          package: `${REGISTRY_TEST_AGENTS[agent].package}@${REGISTRY_TEST_AGENTS[agent].version}`,
          args: [...REGISTRY_TEST_AGENTS[agent].args],
        },
      },
      { version: REGISTRY_TEST_AGENTS[agent].version, description: `${name}, from the npm registry` },
    );
  registry.setIndex({
    version: '1.0.0',
    agents: [
      npx('kilo', 'Kilo', 'kilo'),
      npx('cline', 'Cline', 'cline'),
      npx('github-copilot-cli', 'GitHub Copilot CLI', 'copilot'),
      binary('fake-binary', 'Fake Binary', '/archives/fake.tar.gz', sha256Of(fake)),
      binary('fake-bad-sum', 'Fake Bad Sum', '/archives/fake.tar.gz', '0'.repeat(64)),
      binary('fake-missing', 'Fake Missing', '/archives/missing.tar.gz', '1'.repeat(64)),
      // A version the npm registry (this server's, below) does not have, with newer ones it has.
      registryEntry('fake-next', 'Fake Next', { npx: { package: 'fake-npx-next@0.9.0', args: [] } }, { version: '0.9.0' }),
    ],
    extensions: [],
  });
  publishNpmPackage(registry, 'fake-npx-next', {
    '1.0.0': { tarball: readFileSync(packFakeAgent('npx-next', '1.0.0')), bin: { 'npx-next': 'bin.mjs' } },
    '1.2.0': { tarball: readFileSync(packFakeAgent('npx-next', '1.2.0')), bin: { 'npx-next': 'bin.mjs' } },
  });
});

test.afterAll(async () => {
  await Promise.all(hosts.map((host) => host.kill()));
  await registry.close();
  await stub.close();
});

async function openHost(page: Page, registryUrl: string, env: Record<string, string> = {}): Promise<void> {
  const host = await startWebHost(tempDir('registry-host'), { ...allAgentsHome(stub.url), BATON_REGISTRY_URL: registryUrl, ...env });
  hosts.push(host);
  await page.goto(host.url);
}

/** Installs the agent chosen in the picker from its Install button, and waits for it. */
async function install(page: Page, name: string, version: string): Promise<void> {
  await chooseAgent(page, name);
  await page.getByRole('button', { name: `Install ${name} ${version}` }).click();
  await expect(page.getByRole('status').filter({ hasText: `${name} is installed.` })).toBeVisible({ timeout: INSTALL_TIMEOUT });
}

/** Sends a message and waits for the reply of `agent`. */
async function say(page: Page, agent: string, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByRole('article', { name: new RegExp(`^${agent}`) }).last()).toContainText(text, { timeout: 120_000 });
}

test('with no network, every agent of the shipped snapshot is listed, "copilot" finds GitHub Copilot CLI, and a missing one offers its install', async ({
  page,
}) => {
  await openHost(page, 'off');
  const picker = page.getByRole('combobox', { name: 'Agent', exact: true });
  await picker.click();
  await picker.fill('copilot');
  await expect(page.getByRole('option', { name: 'GitHub Copilot CLI', exact: true })).toBeVisible();
  await page.getByRole('option', { name: 'GitHub Copilot CLI', exact: true }).click();
  await expect(page.getByRole('button', { name: 'Install GitHub Copilot CLI 1.0.80' })).toBeVisible();
  await picker.click();
  await picker.fill('');
  // Every agent of the snapshot: 39 entries, the six built-ins among them (each once).
  await expect(page.getByRole('option')).toHaveCount(39);
  await expect(page.getByRole('option', { name: 'Claude', exact: true })).toContainText('Tested with Baton');
  await picker.press('Escape');

  await page.getByRole('button', { name: 'Settings' }).click();
  const agents = page.getByRole('list', { name: 'Agents' });
  await expect(agents.getByRole('listitem')).toHaveCount(39);
  await expect(page.getByRole('region', { name: 'ACP Registry' })).toContainText('39 agents, from the list Baton shipped with');
  await expect(page.getByRole('region', { name: 'ACP Registry' })).toContainText('Refreshing is off.');
});

test('two agents new to Baton install from the registry, answer, and are each handed a conversation', async ({ page }) => {
  test.setTimeout(INSTALL_TIMEOUT * 3);
  await openHost(page, registry.indexUrl);
  // The conversation starts with Claude…
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('registry-work'));
  await say(page, 'Claude', 'Hello Claude, first');
  // …is handed to Kilo, installed from the picker…
  await install(page, 'Kilo', '7.7.7');
  await say(page, 'Kilo', 'Hello Kilo, over to you');
  await expect(page.getByText('handed off').last()).toBeVisible();
  // …and to Cline.
  await install(page, 'Cline', '3.0.65');
  await say(page, 'Cline', 'Hello Cline, your turn');
  await expect(page.getByText('handed off').last()).toBeVisible();
  // Each got the conversation so far from its handoff: the stub saw the earlier messages in their requests.
  const requests = stub.modelRequests().map((request) => request.userRaw);
  expect(requests.some((text) => text.includes('Hello Kilo, over to you') && text.includes('Hello Claude, first'))).toBe(true);
  expect(requests.some((text) => text.includes('Hello Cline, your turn') && text.includes('Hello Kilo, over to you'))).toBe(true);
});

test('GitHub Copilot CLI starts, shows its version on its card, and its log-in', async ({ page }) => {
  test.setTimeout(INSTALL_TIMEOUT);
  await openHost(page, registry.indexUrl);
  await install(page, 'GitHub Copilot CLI', REGISTRY_TEST_AGENTS.copilot.version);
  const card = page.getByRole('region', { name: 'Agent capabilities' });
  await expect(card).toHaveAttribute('aria-busy', 'false', { timeout: 60_000 });
  await expect(card.getByText(`GitHub Copilot CLI ${REGISTRY_TEST_AGENTS.copilot.version}`, { exact: true })).toBeVisible();
  await expect(
    card.getByRole('group', { name: 'Log in to GitHub Copilot CLI' }).getByRole('button', { name: /Log in with Copilot CLI/ }),
  ).toBeVisible();
});

test('a binary agent installs with its checksum checked and answers; a wrong checksum and a missing archive say why', async ({ page }) => {
  await openHost(page, registry.indexUrl);
  await chooseAgent(page, 'Fake Bad Sum');
  await page.getByRole('button', { name: 'Install Fake Bad Sum 1.0.0' }).click();
  await expect(page.getByRole('alert').filter({ hasText: "Could not install Fake Bad Sum: the archive's checksum is" })).toContainText(
    'it is not what the registry published',
  );
  await chooseAgent(page, 'Fake Missing');
  await page.getByRole('button', { name: 'Install Fake Missing 1.0.0' }).click();
  await expect(page.getByRole('alert').filter({ hasText: 'Could not install Fake Missing:' })).toContainText('answered 404 Not Found');

  await install(page, 'Fake Binary', '1.0.0');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('registry-binary-work'));
  await say(page, 'Fake Binary', 'hello binary');
  await expect(page.getByRole('article', { name: /^Fake Binary/ })).toContainText('Fake reply: hello binary');
});

test('a version the npm registry does not have offers the nearest newer one, which installs once agreed and answers', async ({ page }) => {
  await openHost(page, registry.indexUrl, { npm_config_registry: `${registry.url}/npm/` });
  await chooseAgent(page, 'Fake Next');
  await page.getByRole('button', { name: 'Install Fake Next 0.9.0' }).click();
  const offer = page.getByRole('alertdialog', { name: 'Install Fake Next 1.0.0 instead?' });
  await expect(offer).toContainText(
    'The npm registry has no fake-npx-next@0.9.0, the version the ACP Registry lists for Fake Next. It has 1.0.0 and 1.2.0 after it.',
  );
  await expectNoAxeFindingsInBothThemes(page, 'the install question');
  await offer.getByRole('button', { name: 'Install 1.0.0' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Fake Next is installed.' })).toBeVisible({ timeout: INSTALL_TIMEOUT });
  await expect(page.getByRole('button', { name: /^Install Fake Next/ })).toHaveCount(0);
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('registry-next-work'));
  await say(page, 'Fake Next', 'hello nearest');
  await expect(page.getByRole('article', { name: /^Fake Next/ })).toContainText('Fake reply: hello nearest');
});
