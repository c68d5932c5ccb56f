/**
 * Injectors in a real browser: a working folder's injectors appear only once the folder is
 * trusted; selected in list "Injectors", the Delivery preview shows each part with its level for
 * Claude, Codex and Gemini (as each agent can take it); and the turn's transcript shows the
 * injected context apart from the person's message, which stays as they typed it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { tempDir } from '../fixtures/agentEnv.js';
import { expect, test } from '../fixtures/batonTest.js';
import { saveInstructions } from '../fixtures/instructionsDialog.js';
import { chooseAgent } from '../fixtures/chooseAgent.js';

/** A working folder with two injectors: one first-turn with a context file, one static every-turn. */
function folderWithInjectors(): string {
  const work = tempDir('e2e-injectors-work');
  const checklist = path.join(work, '.agents', 'instructions', 'checklist');
  mkdirSync(checklist, { recursive: true });
  writeFileSync(
    path.join(checklist, 'manifest.json'),
    JSON.stringify({ name: 'checklist', description: 'Release steps', when: 'first_turn', context: ['steps.md'] }),
  );
  writeFileSync(path.join(checklist, 'steps.md'), 'Step one: tag the release (CHECKLIST-MARKER).');
  const voice = path.join(work, '.agents', 'instructions', 'voice');
  mkdirSync(voice, { recursive: true });
  writeFileSync(path.join(voice, 'INSTRUCTIONS.md'), 'Answer like a ship captain (VOICE-MARKER).');
  return work;
}

async function openInstructions(page: Page, agentLabel: string) {
  await chooseAgent(page, agentLabel);
  await page.getByRole('button', { name: 'Instructions', exact: true }).click();
  return page.getByRole('dialog', { name: 'Instructions' });
}

test("trust a folder, select its injectors: the preview shows each part's level for Claude, Codex and Gemini, and the transcript shows the injected context apart", async ({
  page,
  stub,
  startHost,
}) => {
  test.setTimeout(240_000);
  const host = await startHost('e2e-injectors');
  const work = folderWithInjectors();
  await page.goto(host.url);
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);

  // Untrusted: the folder's injectors are not offered, only Baton's own.
  let dialog = await openInstructions(page, 'Claude');
  const list = dialog.getByRole('list', { name: 'Injectors' });
  await expect(list.getByRole('checkbox', { name: 'concise', exact: true })).toBeVisible();
  await expect(list.getByRole('checkbox', { name: 'checklist', exact: true })).toHaveCount(0);
  const folder = dialog.getByRole('region', { name: "This folder's instructions" });
  await expect(folder).toContainText('injectors in .agents/instructions/ (checklist, voice)');
  await expect(folder).toContainText('not trusted: it contributes nothing');
  // What each injector would contribute, file by file, before it is trusted.
  await folder.getByText('.agents/instructions/checklist/ — 2 files').click();
  await expect(folder).toContainText('Step one: tag the release (CHECKLIST-MARKER).');

  await folder.getByRole('button', { name: 'Trust this folder' }).click();
  await expect(folder.getByRole('button', { name: 'Stop trusting this folder' })).toBeVisible();
  await list.getByRole('checkbox', { name: 'checklist', exact: true }).check();
  await list.getByRole('checkbox', { name: 'voice', exact: true }).check();
  await expect(list.getByRole('listitem').filter({ hasText: 'checklist' })).toContainText(
    `first turn; this folder, as you trusted it (${path.join(work, '.agents', 'instructions', 'checklist')})`,
  );
  const preview = dialog.getByRole('region', { name: 'Delivery preview' });
  await expect(preview).toContainText('Injector "voice" (every turn): system, added');
  await expect(preview).toContainText('Injector "checklist" (the first turn only): per-turn context, as an embedded resource');
  // Each part's digest is with its exact text; the bundle's behind "Details".
  await preview.getByText('Details', { exact: true }).click();
  await expect(preview.getByText(/^Digest [0-9a-f]{12}$/)).toBeVisible();
  await saveInstructions(dialog);
  await expect(dialog).toBeHidden();

  // The same selection with agents that take it differently: Codex adds it as its developer
  // instructions (the standard systemPrompt, which it advertises), Gemini cannot add to its prompt.
  dialog = await openInstructions(page, 'Codex');
  await expect(dialog.getByRole('region', { name: 'Delivery preview' })).toContainText('Injector "voice" (every turn): developer');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  for (const agent of ['Gemini']) {
    dialog = await openInstructions(page, agent);
    const agentPreview = dialog.getByRole('region', { name: 'Delivery preview' });
    await expect(dialog.getByRole('list', { name: 'Injectors' }).getByRole('checkbox', { name: 'voice', exact: true })).toBeChecked();
    await expect(agentPreview).toContainText(
      `Injector "voice" (every turn): refused: ${agent} cannot add to its own prompt; replace it instead`,
    );
    await expect(agentPreview).toContainText(`Cannot reach ${agent} at the level asked for.`);
    await expect(agentPreview).toContainText('Injector "checklist" (the first turn only): per-turn context, as an embedded resource');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
  }

  // With Claude, the turn: the injected context is shown apart, the person's message as typed.
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Message' }).fill('Prepare the release');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('article', { name: /^Claude/ })).toContainText('Stub reply');
  await expect(page.getByRole('article', { name: /^You/ })).toHaveText(/Prepare the release$/);
  const checklist = page.getByRole('group', { name: 'Injected context: checklist' });
  await expect(checklist).toContainText('first turn, per-turn resource; added by Baton, not typed by you');
  await checklist.getByText('Injected context: checklist').click();
  await expect(checklist).toContainText('CHECKLIST-MARKER');
  await expect(page.getByRole('group', { name: 'Injected context: voice' })).toContainText('every turn, system');
  const request = stub.modelRequests().find((candidate) => candidate.lastUserText.includes('Prepare the release'));
  expect(request?.system).toContain('VOICE-MARKER');
  expect(request?.lastUserText).toContain('CHECKLIST-MARKER');
});
