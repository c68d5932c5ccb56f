/**
 * A conversation on another machine, in the page, against a real sshd on 127.0.0.1 run from the
 * test's own folder (its own config, host key and authorized key; none of this machine's ssh
 * files read or written) and Claude against the model stub:
 * - the machine of the ssh config is offered in combobox "Machine"; its unknown host key is asked
 *   about in dialog "New host key" with its fingerprint, and trusted with "Trust and connect";
 * - Claude runs there, under sshd and not under Baton's host; its shell command writes a file in
 *   the remote folder after a permission question; a rewind removes it;
 * - after the machine's host key changes, picking it shows an alert naming it and the reason, and
 *   Baton does not try again (at most two connections in sshd's log);
 * - a machine with no Node is blocked with the offer of one ("Upload Node <version>"); once
 *   uploaded, Claude runs there on that Node.
 */
import { existsSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { tempDir, testAgentsBin } from '../fixtures/agentEnv.js';
import { allAgentsHome } from '../fixtures/agentSetups.js';
import { startModelStub, type ModelStub } from '../fixtures/modelStub.js';
import { pathWithoutNode, testNodePackage, thisUname } from '../fixtures/nodePackage.js';
import { claudeStubSettings, firstClaudeTurnThere, rewindRemoving, writeMadeScript } from '../fixtures/remoteClaude.js';
import { startSshd, sshdUnavailable, type Sshd } from '../fixtures/sshd.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';
import { expectNoAxeFindingsInBothThemes } from '../fixtures/axe.js';

const unavailable = sshdUnavailable();

// axe-core is injected as an inline script, which the page's own policy rightly refuses.
test.use({ bypassCSP: true });

/** The environment the remote side's sessions get: Claude found on its PATH, pointed at the stub. */
function remoteEnv(stubUrl: string): Record<string, string> {
  return { ...claudeStubSettings(stubUrl), PATH: `${testAgentsBin}:${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin` };
}

async function say(page: Page, text: string): Promise<void> {
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill(text);
  await composer.press('Enter');
}

test.describe('a conversation on a machine over SSH', () => {
  test.skip(unavailable !== undefined, unavailable ?? '');
  let sshd: Sshd | undefined;
  let stub: ModelStub | undefined;
  const hosts: WebHost[] = [];
  test.afterEach(async () => {
    for (const host of hosts.splice(0)) {
      await host.kill();
    }
    await sshd?.stop();
    sshd = undefined;
    await stub?.close();
    stub = undefined;
  });

  /** Starts Baton's web host on `dataDir`, reaching machines through the test's sshd only. */
  const startHost = async (dataDir: string, env: Record<string, string> = {}): Promise<WebHost> => {
    const host = await startWebHost(dataDir, {
      ...allAgentsHome(stub!.url),
      BATON_SSH_CONFIG: sshd!.configFile,
      BATON_SSH_KNOWN_HOSTS: '',
      ...env,
    });
    hosts.push(host);
    return host;
  };

  test('the host key is asked about; Claude runs under sshd there, writes after a question, and a rewind removes it', async ({ page }) => {
    test.setTimeout(240_000);
    const work = tempDir('e2e-machines-work');
    writeFileSync(path.join(work, 'kept.txt'), 'kept\n');
    stub = await startModelStub({ reply: writeMadeScript(work) });
    sshd = await startSshd('e2e-machines', remoteEnv(stub.url));
    // The folder there is the remote account's (an ordinary one when these tests run as root).
    sshd.hand(work);
    const dataDir = tempDir('e2e-machines-data');
    const host = await startHost(dataDir);
    await page.goto(host.url);

    const machine = page.getByRole('combobox', { name: 'Machine' });
    await expect(machine.getByRole('option')).toHaveText(['This computer', 'baton-test']);
    await machine.selectOption({ label: 'baton-test' });
    const dialog = page.getByRole('dialog', { name: 'New host key' });
    await expect(dialog).toContainText(/SHA256:[A-Za-z0-9+/]{43}/);
    await expectNoAxeFindingsInBothThemes(page, 'the New host key dialog');
    await dialog.getByRole('button', { name: 'Trust and connect' }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('alert').filter({ hasText: 'baton-test' })).toHaveCount(0);

    // The agent runs under sshd there, not under Baton's host.
    const agents = await firstClaudeTurnThere(page, work, 'sshd');
    await expect(page.getByRole('status').filter({ hasText: 'On baton-test: connected' })).toBeVisible();
    expect(agents.every((found) => !found.ancestors.some((process) => process.pid === host.child.pid))).toBe(true);

    await say(page, 'TURN-MAKE please write made.txt');
    const question = page.getByRole('group', { name: /^Permission: / }).last();
    await question.getByRole('button', { name: 'Yes', exact: true }).click({ timeout: 60_000 });
    await expect(page.getByRole('article', { name: 'Claude' }).last()).toContainText('Done.');
    expect(readFileSync(path.join(work, 'made.txt'), 'utf8')).toBe('made there\n');

    // Back to the second message: the file the shell wrote there goes.
    await rewindRemoving(page, 'made.txt');
    expect(existsSync(path.join(work, 'made.txt'))).toBe(false);
    expect(readFileSync(path.join(work, 'kept.txt'), 'utf8')).toBe('kept\n');

    // After a restart, opening the conversation there connects to the machine by itself, before any message.
    await host.kill();
    const again = await startHost(dataDir);
    await page.goto(again.url);
    await expect(page.getByRole('article', { name: 'You' }).first()).toContainText('TURN-HELLO');
    await expect(page.getByRole('status').filter({ hasText: 'On baton-test: connected' })).toBeVisible({ timeout: 30_000 });
  });

  test('a changed host key blocks the machine with the reason, and Baton does not try again', async ({ page }) => {
    test.setTimeout(120_000);
    stub = await startModelStub();
    sshd = await startSshd('e2e-machines-changed', remoteEnv(stub.url));
    const dataDir = tempDir('e2e-machines-changed-data');
    const host = await startHost(dataDir);
    await page.goto(host.url);
    await page.getByRole('combobox', { name: 'Machine' }).selectOption({ label: 'baton-test' });
    await page.getByRole('dialog', { name: 'New host key' }).getByRole('button', { name: 'Trust and connect' }).click();
    await expect(page.getByRole('dialog', { name: 'New host key' })).toBeHidden();

    // The machine is reinstalled (or someone is in between): a new key, and Baton is started again.
    await host.kill();
    await sshd.changeHostKey();
    const logBefore = sshd.log().length;
    const again = await startHost(dataDir);
    await page.goto(again.url);
    await page.getByRole('combobox', { name: 'Machine' }).selectOption({ label: 'baton-test' });
    await expect(page.getByRole('alert').filter({ hasText: 'baton-test is blocked: host key changed' })).toBeVisible();
    await expect(page.getByRole('dialog', { name: 'New host key' })).toHaveCount(0);
    await page.waitForTimeout(3_000);
    const connections = (
      sshd
        .log()
        .slice(logBefore)
        .match(/Connection from 127\.0\.0\.1/g) ?? []
    ).length;
    expect(connections).toBeGreaterThan(0);
    expect(connections).toBeLessThanOrEqual(2);
  });

  test('a machine with no Node offers one; once uploaded, Claude runs there on it', async ({ page }) => {
    test.setTimeout(240_000);
    const work = tempDir('e2e-machines-no-node-work');
    stub = await startModelStub({ reply: writeMadeScript(work) });
    // The tools a session uses and Claude's adapter there, but no node.
    // (Not the test agents' whole bin folder: one of them brings a node of its own.)
    const PATH = pathWithoutNode(path.join(testAgentsBin, 'claude-agent-acp'));
    sshd = await startSshd('e2e-machines-no-node', { ...remoteEnv(stub.url), PATH });
    sshd.hand(work, PATH);
    // The registry's Node package stands in as one packed from this computer's Node (no network in tests).
    const pkg = testNodePackage();
    const packages = path.join(tempDir('e2e-node-packages'), 'packages.json');
    writeFileSync(packages, JSON.stringify({ [thisUname()]: pkg }));
    const host = await startHost(tempDir('e2e-machines-no-node-data'), { BATON_NODE_PACKAGES: packages });
    await page.goto(host.url);

    await page.getByRole('combobox', { name: 'Machine' }).selectOption({ label: 'baton-test' });
    await page.getByRole('dialog', { name: 'New host key' }).getByRole('button', { name: 'Trust and connect' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'baton-test is blocked: no Node there' });
    await expect(alert).toContainText(`Baton can upload Node ${pkg.version} there`);
    await alert.getByRole('button', { name: `Upload Node ${pkg.version}` }).click();
    // What it is doing shows while it does it, and goes once connected.
    const progress = page.getByRole('status').filter({ hasText: 'Connecting to baton-test:' });
    await expect(progress).toContainText(/Fetching Node|Uploading Node/);
    await expect(progress).toBeHidden({ timeout: 60_000 });
    await expect(alert).toHaveCount(0);
    const uploaded = path.join(sshd.home, '.baton', 'node', pkg.version, 'bin', 'node');
    expect(existsSync(uploaded)).toBe(true);

    // Claude's adapter (a node program from npm) runs there on the Node Baton uploaded.
    const agents = await firstClaudeTurnThere(page, work, 'sshd');
    await expect(page.getByRole('status').filter({ hasText: 'On baton-test: connected' })).toBeVisible();
    expect(agents.map((found) => realpathSync(`/proc/${found.pid}/exe`))).toContain(realpathSync(uploaded));
  });
});
