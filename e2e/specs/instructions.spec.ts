/**
 * Instructions in a real browser: written in dialog "Instructions", delivered to Claude at system
 * level (the model stub answers from what its system channel held), and refused for Gemini when
 * asked to add to its prompt, in the preview and on the turn.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { tempDir } from '../fixtures/agentEnv.js';
import { expect, test, type StartHost } from '../fixtures/batonTest.js';
import { saveInstructions } from '../fixtures/instructionsDialog.js';
import { chooseAgent } from '../fixtures/chooseAgent.js';

const MARKER = 'PAPAYA-7731';
// The stub says where the marker was: in the system channel, in a user message, or nowhere.
test.use({
  stubOptions: {
    // Structured requests (Gemini's own checks) get the default script's answer.
    reply: (request) =>
      request.jsonSchema !== undefined
        ? undefined
        : {
            chunks: [
              request.system.includes(MARKER) ? `The system channel holds ${MARKER}` : 'No marker in the system channel',
              request.userRaw.includes(MARKER) ? ', and a user message holds it too.' : ', and no user message holds it.',
            ],
          },
  },
});

async function start(page: Page, startHost: StartHost, agentLabel: string): Promise<void> {
  const host = await startHost('e2e-instructions');
  await page.goto(host.url);
  await chooseAgent(page, agentLabel);
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-work'));
}

async function writeInstructions(page: Page, intent: string): Promise<ReturnType<Page['getByRole']>> {
  await page.getByRole('button', { name: 'Instructions', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Instructions' });
  // The dialog keeps its size as its preview arrives: its actions never move under the pointer.
  const cancel = dialog.getByRole('button', { name: 'Cancel' });
  const before = await cancel.boundingBox();
  await expect(dialog.getByRole('region', { name: 'Delivery preview' })).toBeVisible();
  expect(await cancel.boundingBox()).toEqual(before);
  await dialog.getByRole('textbox', { name: 'Your instructions' }).fill(`Always mention ${MARKER}.`);
  await dialog.getByRole('radiogroup', { name: 'Your instructions' }).getByRole('radio', { name: intent }).check();
  return dialog;
}

test('your instructions reach Claude at system level, never as message text', async ({ page, startHost }) => {
  await start(page, startHost, 'Claude');
  const dialog = await writeInstructions(page, "Add to the agent's prompt");
  await expect(dialog.getByRole('region', { name: 'Delivery preview' })).toContainText('Your instructions: system, added');
  // Digests are behind "Details"; the switches say they are the agent's, for every conversation.
  await expect(dialog.getByText(/^Digest [0-9a-f]{12}$/)).toBeHidden();
  await dialog.getByRole('region', { name: 'Delivery preview' }).getByText('Details', { exact: true }).click();
  await expect(dialog.getByText(/^Digest [0-9a-f]{12}$/)).toBeVisible();
  await expect(dialog).toContainText('they apply at once to every conversation with Claude');
  // Save first says which agents would refuse them as written, each with its ways out.
  await dialog.getByRole('button', { name: 'Save', exact: true }).click();
  const cannot = dialog.getByRole('list', { name: 'Agents that cannot take these instructions' });
  const gemini = cannot.getByRole('listitem').filter({ hasText: /^Gemini:/ });
  await expect(gemini).toContainText('Gemini cannot add to its own prompt');
  await expect(cannot.getByRole('listitem').filter({ hasText: /^Claude:/ })).toHaveCount(0);
  await expect(cannot.getByRole('group', { name: 'Choices for Qwen' }).getByRole('button', { name: 'Allow for Qwen' })).toBeVisible();
  await gemini.getByRole('button', { name: "Don't send my instructions to Gemini" }).click();
  await expect(gemini).toHaveCount(0);
  await dialog.getByRole('button', { name: 'Save anyway' }).click();
  await expect(dialog).toBeHidden();

  await page.getByRole('textbox', { name: 'Message' }).fill('Hello with instructions');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('article', { name: /^Claude/ })).toContainText(
    `The system channel holds ${MARKER}, and no user message holds it.`,
  );
  // The person's message is shown as they wrote it: the instructions are not in it.
  await expect(page.getByRole('article', { name: /^You/ })).toHaveText(/Hello with instructions$/);

  // Saved: the dialog shows them again.
  await page.getByRole('button', { name: 'Instructions', exact: true }).click();
  await expect(page.getByRole('dialog', { name: 'Instructions' }).getByRole('textbox', { name: 'Your instructions' })).toHaveValue(
    `Always mention ${MARKER}.`,
  );
});

test('Gemini cannot add to its prompt: the preview and the turn say so, and nothing reaches its model', async ({
  page,
  stub,
  startHost,
}) => {
  await start(page, startHost, 'Gemini');
  const dialog = await writeInstructions(page, "Add to the agent's prompt");
  await expect(dialog.getByRole('region', { name: 'Delivery preview' })).toContainText(
    'Your instructions: refused: Gemini cannot add to its own prompt; replace it instead',
  );
  await expect(dialog.getByRole('alert')).toContainText('Gemini would refuse this');
  await saveInstructions(dialog);
  await expect(dialog).toBeHidden();

  await page.getByRole('textbox', { name: 'Message' }).fill('Hello Gemini');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  const refusal = page.getByRole('alert').filter({ hasText: 'Gemini cannot take instructions to add to its prompt' });
  await expect(refusal).toBeVisible();
  expect(stub.modelRequests().filter((request) => request.dialect === 'gemini')).toEqual([]);

  // The refusal has its ways out: this message goes without the instructions (said on the turn), and nothing of them reaches the model.
  const ways = refusal.getByRole('group', { name: 'Ways to send it' });
  await expect(ways.getByRole('button', { name: "Don't send my instructions to Gemini" })).toBeVisible();
  await expect(ways.getByRole('button', { name: 'Open Instructions' })).toBeVisible();
  await ways.getByRole('button', { name: 'Send without my instructions this time' }).click();
  await expect(page.getByRole('article', { name: /^Gemini/ })).toHaveCount(1);
  await expect(page.getByRole('article', { name: 'You' })).toHaveCount(1);
  await expect(page.getByRole('article', { name: 'You' })).toContainText('sent without your instructions');
  const sent = stub.modelRequests().filter((request) => request.dialect === 'gemini');
  expect(sent.length).toBeGreaterThan(0);
  expect(JSON.stringify(sent)).not.toContain(MARKER);

  // Replacing is possible: the next message goes through with the marker at system level.
  await page.getByRole('button', { name: 'Instructions', exact: true }).click();
  await page
    .getByRole('dialog', { name: 'Instructions' })
    .getByRole('radiogroup', { name: 'Your instructions' })
    .getByRole('radio', { name: "Replace the agent's prompt" })
    .check();
  await expect(page.getByRole('dialog', { name: 'Instructions' }).getByRole('region', { name: 'Delivery preview' })).toContainText(
    'Your instructions: system, replaced',
  );
  await saveInstructions(page.getByRole('dialog', { name: 'Instructions' }));
  await expect(page.getByRole('dialog', { name: 'Instructions' })).toBeHidden();
  await page.getByRole('textbox', { name: 'Message' }).fill('Hello again Gemini');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('article', { name: /^Gemini/ }).last()).toContainText(
    `The system channel holds ${MARKER}, and no user message holds it.`,
  );
});

test("a folder's own instructions reach Claude only once you trust the folder; the agent's profile is there too", async ({
  page,
  stub,
  startHost,
}) => {
  const host = await startHost('e2e-instructions');
  const work = tempDir('e2e-work');
  mkdirSync(path.join(work, '.baton'));
  writeFileSync(path.join(work, '.baton', 'instructions.md'), `The folder asks you to mention ${MARKER}.`);
  await page.goto(host.url);
  await chooseAgent(page, 'Claude');
  await page.getByRole('textbox', { name: 'Working folder' }).fill(work);
  await page.getByRole('button', { name: 'Instructions', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Instructions' });
  const folder = dialog.getByRole('region', { name: "This folder's instructions" });
  await expect(folder).toContainText('not trusted: it contributes nothing');
  await expect(folder).toContainText(`The folder asks you to mention ${MARKER}.`);
  await expect(dialog.getByRole('region', { name: 'Delivery preview' })).not.toContainText("This folder's instructions");
  await expect(dialog.getByRole('textbox', { name: 'Instructions for Claude' })).toHaveValue('');
  await expect(dialog).toContainText('its profile, not written yet');

  // "Trust this folder" then Cancel: nothing is trusted.
  await folder.getByRole('button', { name: 'Trust this folder' }).click();
  await expect(folder.getByRole('button', { name: 'Stop trusting this folder' })).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await page.getByRole('button', { name: 'Instructions', exact: true }).click();
  await expect(folder).toContainText('not trusted: it contributes nothing');

  await folder.getByRole('button', { name: 'Trust this folder' }).click();
  await expect(folder.getByRole('button', { name: 'Stop trusting this folder' })).toBeVisible();
  await expect(dialog.getByRole('region', { name: 'Delivery preview' })).toContainText(
    "This folder's instructions (.baton/instructions.md): system, added",
  );
  await dialog.getByRole('textbox', { name: 'Instructions for Claude' }).fill('Claude, be brief.');
  await saveInstructions(dialog);
  await expect(dialog).toBeHidden();

  await page.getByRole('textbox', { name: 'Message' }).fill('Hello from a trusted folder');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('article', { name: /^Claude/ })).toContainText(
    `The system channel holds ${MARKER}, and no user message holds it.`,
  );
  const request = stub
    .modelRequests()
    .find((candidate) => candidate.userTexts.some((text) => text.includes('Hello from a trusted folder')));
  expect(request?.system).toContain('Claude, be brief.');

  await page.getByRole('button', { name: 'Instructions', exact: true }).click();
  await expect(page.getByRole('dialog', { name: 'Instructions' })).toContainText('its profile, revision 1');
});
