/**
 * Claude as people install it today (claude-agent-acp 0.101), in the page:
 * - the person's permission mode wins: it starts a session in "Auto" (its own classifier decides)
 *   unless asked otherwise, so after the first message the Mode picker shows "Manual", the
 *   transcript says Baton set it back, and the modes in which the agent decides alone are marked;
 * - steering: it advertises `_meta.steering`, so a follow-up queued while a reply streams can be
 *   sent now, into the running turn, and the transcript keeps it there.
 */
import type { Page } from '@playwright/test';
import { agentTestEnv, tempDir } from '../fixtures/agentEnv.js';
import { expect, test, type StartHost } from '../fixtures/batonTest.js';
import type { ModelStub } from '../fixtures/modelStub.js';
import { chooseAgent } from '../fixtures/chooseAgent.js';
import { choiceNames, pickValue } from '../fixtures/choices.js';

/** A new conversation with Claude in the page; resolves with the message box. */
async function claudeConversation(page: Page, startHost: StartHost, stub: ModelStub, name: string) {
  const host = await startHost(`e2e-${name}`, agentTestEnv(stub.url));
  await page.goto(host.url);
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir(`e2e-${name}-work`));
  return page.getByRole('textbox', { name: 'Message' });
}

test('a new Claude conversation asks first: Manual, never a self-approving mode the person did not pick', async ({
  page,
  stub,
  startHost,
}) => {
  const message = await claudeConversation(page, startHost, stub, 'modes');
  await message.fill('Hello, which mode are you in?');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Claude/ })).toContainText('Stub reply');

  const mode = page.getByRole('group', { name: 'Session options' }).getByRole('combobox', { name: 'Mode', exact: true });
  await expect(mode).toHaveAttribute('data-value', 'default');
  const modes = await choiceNames(page, mode);
  expect(modes).toContain('Manual');
  expect(modes).toContain('Auto (the agent decides without asking you)');
  // What Manual does is said in Claude's own words, in the notice and on the picker.
  await expect(
    page.getByText(
      'started this session in Auto, where it decides without asking you. Baton set it to Manual (Claude: “Always ask before making changes”); pick another mode',
    ),
  ).toBeVisible();
  await expect(mode).toHaveAccessibleDescription('Always ask before making changes');

  // Picked by the person, it is kept, and marked beside the picker.
  await pickValue(page, mode, 'auto');
  await expect(page.getByRole('note').filter({ hasText: 'In Auto, the agent decides without asking you.' })).toBeVisible();
});

test('"Send now" steers a running Claude turn: the follow-up reaches the model within that turn', async ({ page, stub, startHost }) => {
  test.setTimeout(120_000);
  const message = await claudeConversation(page, startHost, stub, 'steer');
  await message.fill('Count slowly please\nSLOW_STREAM 6');
  await message.press('Enter');
  await expect(page.getByRole('article', { name: /^Claude/ })).toContainText('slow3');

  await message.fill('Also mention STEER-MARKER');
  await message.press('Enter');
  const queued = page.getByRole('status').filter({ hasText: 'Queued, sent when this reply ends' });
  await expect(queued).toBeVisible();
  await queued.getByRole('button', { name: 'Send now' }).click();
  await expect(queued).toBeHidden();
  // In the transcript, inside the running turn, marked as such; no second turn was started.
  const steered = page.getByRole('article', { name: 'You' }).filter({ hasText: 'Also mention STEER-MARKER' });
  await expect(steered).toContainText('sent into the running reply');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
  // The model is sent the follow-up while the turn still runs (Claude reads it at its next step).
  await expect
    .poll(() => stub.modelRequests().some((request) => request.userTexts.some((text) => text.includes('STEER-MARKER'))), {
      timeout: 60_000,
    })
    .toBe(true);
});
