/**
 * Handing a conversation between real agents in the page: Claude → Qwen → Claude and
 * Claude → Gemini → Claude, picked in the header's Agent picker mid-conversation. Each reply is
 * shown and attributed to its agent, each switch has a marker with its fidelity badge, and what
 * the new agent was given can be read. After a reload, the same.
 */
import type { Page } from '@playwright/test';
import { tempDir } from '../fixtures/agentEnv.js';
import { expect, test } from '../fixtures/batonTest.js';
import { chooseAgent } from '../fixtures/chooseAgent.js';

async function say(page: Page, text: string): Promise<void> {
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill(text);
  await composer.press('Enter');
}

for (const other of ['Qwen', 'Gemini']) {
  test(`Claude → ${other} → Claude: each reply attributed, each switch marked with its fidelity`, async ({ page, startHost }) => {
    test.setTimeout(240_000);
    const host = await startHost('e2e-handoff');
    await page.goto(host.url);
    await chooseAgent(page, 'Claude');
    await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-handoff-work'));
    await say(page, 'First question for Claude');
    const replies = page.getByRole('article').filter({ hasNotText: /^You/ });
    await expect(page.getByRole('article', { name: 'Claude' })).toContainText('First question for Claude');

    // The picker works in the conversation: the next message goes to the other agent.
    await chooseAgent(page, other);
    await expect(page.getByRole('status').filter({ hasText: `Your next message goes to ${other}` })).toBeVisible();
    await say(page, `Second question for ${other}`);
    await expect(page.getByRole('article', { name: other })).toContainText(`Second question for ${other}`);
    const toOther = page.getByRole('group', { name: `Switched from Claude to ${other}` });
    await expect(toOther).toContainText('handed off');
    await expect(toOther).toContainText('1 turn in full, 0 summarised, 0 left out');
    await toOther.getByText(`What ${other} was given`).click();
    await expect(toOther).toContainText('First question for Claude');

    await chooseAgent(page, 'Claude');
    await say(page, 'Third question, Claude again');
    await expect(page.getByRole('article', { name: 'Claude' }).nth(1)).toContainText('Third question, Claude again');
    const back = page.getByRole('group', { name: `Switched from ${other} to Claude` });
    await expect(back).toContainText('resumed');
    await expect(back).toContainText('its own session, with the 1 turn since it last took part');

    // Attributed turn by turn, in order; the person's messages as typed.
    await expect(replies).toHaveCount(3);
    await expect(page.getByRole('article', { name: 'You' })).toHaveText([
      /First question for Claude$/,
      new RegExp(`Second question for ${other}$`),
      /Third question, Claude again$/,
    ]);
    const names = await page.locator('article.message-agent').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('aria-label')));
    expect(names).toEqual(['Claude', other, 'Claude']);

    await page.screenshot({ path: `e2e/artifacts/handoff-${other.toLowerCase()}.png`, fullPage: true });

    // The same after a reload.
    await page.reload();
    await page
      .getByRole('button', { name: /First question for Claude/ })
      .first()
      .click();
    await expect(page.getByRole('group', { name: `Switched from Claude to ${other}` })).toContainText('handed off');
    await expect(page.getByRole('group', { name: `Switched from ${other} to Claude` })).toContainText('resumed');
    await expect(page.locator('article.message-agent')).toHaveCount(3);
  });
}
