/**
 * Instructions in a real browser: written in dialog "Instructions", delivered to Claude at system
 * level (the model stub answers from what its system channel held), and refused for Gemini when
 * asked to add to its prompt, in the preview and on the turn.
 */
import { expect, test, type Page } from '@playwright/test';
import { allAgentsHome } from '../fixtures/agentSetups.js';
import { tempDir } from '../fixtures/agentEnv.js';
import { startModelStub, type ModelStub } from '../fixtures/modelStub.js';
import { startWebHost, type WebHost } from '../fixtures/webHost.js';

const MARKER = 'PAPAYA-7731';
let stub: ModelStub;
let host: WebHost | undefined;

test.beforeEach(async () => {
  // The stub says where the marker was: in the system channel, in a user message, or nowhere.
  stub = await startModelStub({
    // Structured requests (Gemini's own checks) get the default script's answer.
    reply: (request) => request.jsonSchema !== undefined ? undefined : ({
      chunks: [request.system.includes(MARKER) ? `The system channel holds ${MARKER}` : 'No marker in the system channel', request.userRaw.includes(MARKER) ? ', and a user message holds it too.' : ', and no user message holds it.'],
    }),
  });
});

test.afterEach(async () => {
  await host?.kill();
  host = undefined;
  await stub.close();
});

async function start(page: Page, agentLabel: string): Promise<void> {
  host = await startWebHost(tempDir('e2e-instructions'), allAgentsHome(stub.url));
  await page.goto(host.url);
  await page.getByRole('combobox', { name: 'Agent' }).selectOption({ label: agentLabel });
  await page.getByRole('textbox', { name: 'Working folder' }).fill(tempDir('e2e-work'));
}

async function writeInstructions(page: Page, intent: string): Promise<ReturnType<Page['getByRole']>> {
  await page.getByRole('button', { name: 'Instructions', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Instructions' });
  await dialog.getByRole('textbox', { name: 'Your instructions' }).fill(`Always mention ${MARKER}.`);
  await dialog.getByRole('radiogroup', { name: 'Your instructions' }).getByRole('radio', { name: intent }).check();
  return dialog;
}

test('your instructions reach Claude at system level, never as message text', async ({ page }) => {
  await start(page, 'Claude');
  const dialog = await writeInstructions(page, "Add to the agent's prompt");
  await expect(dialog.getByRole('region', { name: 'What Claude receives' })).toContainText('Your instructions: system, added');
  await expect(dialog.getByText(/^Digest [0-9a-f]{12}$/)).toBeVisible();
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();

  await page.getByRole('textbox', { name: 'Message' }).fill('Hello with instructions');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('article', { name: /^Claude/ })).toContainText(`The system channel holds ${MARKER}, and no user message holds it.`);
  // The person's message is shown as they wrote it: the instructions are not in it.
  await expect(page.getByRole('article', { name: /^You/ })).toHaveText(/Hello with instructions$/);

  // Saved: the dialog shows them again.
  await page.getByRole('button', { name: 'Instructions', exact: true }).click();
  await expect(page.getByRole('dialog', { name: 'Instructions' }).getByRole('textbox', { name: 'Your instructions' })).toHaveValue(`Always mention ${MARKER}.`);
});

test('Gemini cannot add to its prompt: the preview and the turn say so, and nothing reaches its model', async ({ page }) => {
  await start(page, 'Gemini');
  const dialog = await writeInstructions(page, "Add to the agent's prompt");
  await expect(dialog.getByRole('region', { name: 'What Gemini receives' })).toContainText("Your instructions: refused: Gemini cannot add to its own prompt; replace it instead");
  await expect(dialog.getByRole('alert')).toContainText('Gemini would refuse this');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();

  await page.getByRole('textbox', { name: 'Message' }).fill('Hello Gemini');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'Gemini cannot take instructions to add to its prompt' })).toBeVisible();
  expect(stub.modelRequests().filter((request) => request.dialect === 'gemini')).toEqual([]);

  // Replacing is possible: the next message goes through with the marker at system level.
  await page.getByRole('button', { name: 'Instructions', exact: true }).click();
  await page.getByRole('dialog', { name: 'Instructions' }).getByRole('radiogroup', { name: 'Your instructions' }).getByRole('radio', { name: "Replace the agent's prompt" }).check();
  await expect(page.getByRole('dialog', { name: 'Instructions' }).getByRole('region', { name: 'What Gemini receives' })).toContainText('Your instructions: system, replaced');
  await page.getByRole('dialog', { name: 'Instructions' }).getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('dialog', { name: 'Instructions' })).toBeHidden();
  await page.getByRole('textbox', { name: 'Message' }).fill('Hello again Gemini');
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  await expect(page.getByRole('article', { name: /^Gemini/ })).toContainText(`The system channel holds ${MARKER}, and no user message holds it.`);
});
