/**
 * The look, measured (issue 47), at 1280×800, 700×800 and 480×800 in both themes:
 * - the transcript's share of the window's height (at least 60% at every size), the header one row
 *   and nothing scrolling sideways, with a long code line and a long word in the conversation;
 * - every dialog's actions in a row of their own, apart from its body (the body scrolls between the
 *   heading and the actions), inside the window; axe finds nothing in any dialog, in either theme;
 * - four attempts at 1280 px: tabs, one per attempt with its state, none of them scrolling
 *   sideways, the arrow keys moving between them; Compare and Keep framed, axe finding nothing in
 *   them; three side by side in a wider window;
 * - an imported transcript's review and "Add container", framed, axe finding nothing in them, in both
 *   themes.
 * Screenshots go to e2e/artifacts/look/ (the README's come from here).
 */
/// <reference lib="dom" />
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { tempDir } from '../fixtures/agentEnv.js';
import type { WebHost } from '../fixtures/webHost.js';
import { fakeAgentsDraft } from '../fixtures/fakeAgentsDraft.js';
import { axeViolations } from '../fixtures/axe.js';
import { syntheticTranscript } from '../fixtures/syntheticTranscript.js';
import { askAgents, openKeepDialog, selectAttempt } from '../fixtures/askSeveral.js';

const ARTIFACTS = path.resolve('e2e/artifacts/look');
const SIZES = [1280, 700, 480] as const;
const THEMES = ['light', 'dark'] as const;
const AGENTS = ['Fake A', 'Fake B', 'Fake C', 'Fake D'];
const LONG_LINE = `const everything = [${Array.from({ length: 40 }, (_, index) => `'item-${index}'`).join(', ')}];`;
const FIRST_MESSAGE = `Hello, with code:\n\n\`\`\`ts\n${LONG_LINE}\n\`\`\`\n\nand a wide word ${'x'.repeat(160)}`;

let host: WebHost | undefined;

// axe-core is injected as an inline script, which the page's own policy rightly refuses.
test.use({ bypassCSP: true });

test.afterEach(async () => {
  await host?.kill();
  host = undefined;
});

async function send(page: Page, text: string): Promise<void> {
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill(text);
  await composer.press('Enter');
}

/** A host with four fake agents and one conversation with Fake A: a long code line and a long word, and its reply. */
async function conversation(page: Page): Promise<void> {
  host = await fakeAgentsDraft(page, 'e2e-look', AGENTS);
  await send(page, FIRST_MESSAGE);
  await expect(page.getByRole('article', { name: 'Fake A' })).toContainText('Fake reply: Hello, with code');
}

async function setLook(page: Page, width: number, theme: (typeof THEMES)[number]): Promise<void> {
  await page.setViewportSize({ width, height: 800 });
  await page.emulateMedia({ colorScheme: theme });
  await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
}

/** What the page measures of itself: the transcript's share of the height, the header's height, the widest scroll. */
function measure(page: Page) {
  return page.evaluate(() => {
    const transcript = document.querySelector('section[aria-label="Transcript"]')!.getBoundingClientRect();
    const header = document.querySelector('.pane-header')!.getBoundingClientRect();
    const main = document.querySelector('main')!;
    // Anything of the main pane (outside a code block or a table, which scroll in their own box) past the window's right edge.
    const outside = Array.from(main.querySelectorAll<HTMLElement>('*'))
      .filter((node) => !node.closest('pre, table, .code-block') && node.checkVisibility())
      .filter((node) => node.getBoundingClientRect().right > window.innerWidth + 1)
      .map((node) => `${node.tagName.toLowerCase()}.${node.className}`);
    return {
      transcriptShare: transcript.height / window.innerHeight,
      headerHeight: header.height,
      scrollWidth: Math.max(document.documentElement.scrollWidth, main.scrollWidth),
      outside,
    };
  });
}

/** Clicks the header's own button `name`, or its item in "Conversation actions" where the window is too narrow for the button. */
async function fromHeader(page: Page, name: string): Promise<void> {
  const button = page.getByRole('button', { name, exact: true });
  if (await button.isVisible()) {
    await button.click();
    return;
  }
  await page.getByRole('button', { name: 'Conversation actions' }).click();
  await page.getByRole('menuitem', { name, exact: true }).click();
}

/** Clicks an action of the person's first (or last) message (the actions show on hover and focus). */
async function messageAction(page: Page, name: string, which: 'first' | 'last' = 'first'): Promise<void> {
  const mine = page.getByRole('article', { name: 'You' })[which]();
  await mine.hover();
  await mine.getByRole('button', { name }).click();
}

/** The dialog's parts as the window shows them. */
async function dialogBoxes(dialog: Locator) {
  return dialog.evaluate((node) => {
    const box = (selector: string) => node.querySelector(selector)!.getBoundingClientRect();
    const body = node.querySelector('.dialog-body')!;
    return {
      dialog: node.getBoundingClientRect().toJSON() as DOMRect,
      head: box('.dialog-head').toJSON() as DOMRect,
      body: body.getBoundingClientRect().toJSON() as DOMRect,
      actions: box(':scope > .dialog-actions').toJSON() as DOMRect,
      bodyScrollsSideways: body.scrollWidth > body.clientWidth + 1,
      window: { width: window.innerWidth, height: window.innerHeight },
    };
  });
}

/** The dialog's actions are below its body and its body below its heading, all inside the window; nothing scrolls sideways. */
async function expectFramed(dialog: Locator, what: string): Promise<void> {
  const boxes = await dialogBoxes(dialog);
  expect(boxes.actions.top, `${what}: the actions start where the body ends`).toBeGreaterThanOrEqual(boxes.body.bottom - 0.5);
  expect(boxes.body.top, `${what}: the body starts under the heading`).toBeGreaterThanOrEqual(boxes.head.bottom - 0.5);
  expect(boxes.actions.bottom, `${what}: the actions are inside the window`).toBeLessThanOrEqual(boxes.window.height);
  expect(boxes.dialog.right, `${what}: the dialog fits the window's width`).toBeLessThanOrEqual(boxes.window.width);
  expect(boxes.bodyScrollsSideways, `${what}: the body does not scroll sideways`).toBe(false);
  expect(boxes.body.height, `${what}: the body shows some of its content`).toBeGreaterThan(40);
}

type DialogCase = { name: string; open: (page: Page) => Promise<void>; close: string; fill?: (dialog: Locator) => Promise<void> };

const DIALOGS: DialogCase[] = [
  { name: 'Rewind', open: (page) => messageAction(page, 'Rewind to here'), close: 'Cancel' },
  { name: 'Branch from here', open: (page) => messageAction(page, 'Branch from here'), close: 'Cancel' },
  {
    name: 'Ask several agents',
    open: async (page) => {
      await page.getByRole('textbox', { name: 'Message' }).fill('Which of you does it best?');
      await page.getByRole('button', { name: 'Ask several agents…' }).click();
    },
    close: 'Cancel',
    fill: async (dialog) => {
      for (const agent of AGENTS) {
        await dialog.getByRole('checkbox', { name: agent, exact: true }).check();
      }
      await dialog.getByRole('checkbox', { name: 'Run each in its own container' }).check();
    },
  },
  {
    name: 'Instructions',
    open: (page) => fromHeader(page, 'Instructions'),
    close: 'Cancel',
    // Every part open: each instructions box written in, every fold opened.
    fill: async (dialog) => {
      for (const box of await dialog.getByRole('textbox').all()) {
        await box.fill('Answer in plain words.\n'.repeat(6));
      }
      await dialog
        .locator('details:not([open]) > summary')
        .evaluateAll((summaries) => summaries.forEach((summary) => (summary as HTMLElement).click()));
    },
  },
  { name: 'Toolbox', open: (page) => fromHeader(page, 'Toolbox'), close: 'Close' },
  {
    name: 'Keyboard shortcuts',
    open: async (page) => {
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.keyboard.press('?');
    },
    close: 'Close',
  },
];

test('the transcript, the header and every dialog at 1280, 700 and 480 px in both themes; axe in each dialog', async ({ page }) => {
  test.setTimeout(300_000);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await conversation(page);
  for (const theme of THEMES) {
    for (const width of SIZES) {
      await setLook(page, width, theme);
      const look = `${width}-${theme}`;
      await page.screenshot({ path: path.join(ARTIFACTS, `conversation-${look}.png`) });
      const measured = await measure(page);
      expect(measured.outside, `${look}: nothing past the window's right edge`).toEqual([]);
      expect(measured.scrollWidth, `${look}: nothing scrolls sideways`).toBeLessThanOrEqual(width);
      expect(measured.headerHeight, `${look}: the header is one row`).toBeLessThanOrEqual(48);
      expect(measured.transcriptShare, `${look}: the transcript's share of the height`).toBeGreaterThanOrEqual(0.6);
      for (const { name, open, close, fill } of DIALOGS) {
        await open(page);
        const dialog = page.getByRole('dialog', { name });
        await expect(dialog).toBeVisible();
        await fill?.(dialog);
        await expectFramed(dialog, `${name} at ${look}`);
        if (width === 1280) {
          expect(await axeViolations(page), `axe in ${name} at ${look}`).toEqual([]);
        }
        await page.screenshot({ path: path.join(ARTIFACTS, `${name.toLowerCase().replace(/ /g, '-')}-${look}.png`) });
        await dialog.getByRole('button', { name: close, exact: true }).click();
        await expect(dialog).toBeHidden();
      }
      await page.getByRole('textbox', { name: 'Message' }).fill('');
    }
  }

  // The README's Rewind dialog: a short message rewound.
  await setLook(page, 1280, 'light');
  await send(page, 'Rename the parser module to reader, please.');
  await expect(page.getByRole('article', { name: 'Fake A' }).last()).toContainText('Fake reply: Rename the parser module');
  await messageAction(page, 'Rewind to here', 'last');
  const rewind = page.getByRole('dialog', { name: 'Rewind' });
  await expect(rewind).toContainText('No file the agent changed needs to be put back.');
  await page.screenshot({ path: path.join(ARTIFACTS, 'rewind-dialog.png') });
  await rewind.getByRole('button', { name: 'Cancel' }).click();

  // An imported transcript's review, in both themes.
  const file = path.join(tempDir('e2e-look-import'), 'imported.jsonl');
  writeFileSync(file, syntheticTranscript({ turns: 2, title: 'Imported for a look' }));
  await page.getByLabel('Import a transcript file').setInputFiles(file);
  const notice = page.getByRole('region', { name: 'Imported conversation' });
  for (const theme of THEMES) {
    await setLook(page, 1280, theme);
    await notice.getByRole('button', { name: 'Review and confirm…' }).click();
    const review = page.getByRole('dialog', { name: 'Confirm imported conversation' });
    await expectFramed(review, `the import's review, ${theme}`);
    expect(await axeViolations(page), `axe in the import's review, ${theme}`).toEqual([]);
    await review.getByRole('button', { name: 'Cancel' }).click();
    await expect(review).toBeHidden();
  }

  // Settings › Machines › "Add container", in both themes.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = page.getByRole('main', { name: 'Settings' });
  await settings.getByRole('tab', { name: 'Machines' }).click();
  for (const theme of THEMES) {
    await setLook(page, 1280, theme);
    await settings.getByRole('tabpanel', { name: 'Machines' }).getByRole('button', { name: 'Add container' }).click();
    const add = page.getByRole('dialog', { name: 'Add container' });
    await expectFramed(add, `Add container, ${theme}`);
    expect(await axeViolations(page), `axe in Add container, ${theme}`).toEqual([]);
    await add.getByRole('button', { name: 'Cancel' }).click();
    await expect(add).toBeHidden();
  }
});

/** Whether any attempt column shown scrolls sideways, or holds something wider than itself outside a code block or a table. */
function columnsOverflow(page: Page) {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll<HTMLElement>('.attempt'))
      .filter((column) => column.checkVisibility())
      .flatMap((column) => {
        const right = column.getBoundingClientRect().right;
        const wide = Array.from(column.querySelectorAll<HTMLElement>('*')).filter(
          (node) => !node.closest('pre, table, .code-block') && node.getBoundingClientRect().right > right + 1,
        );
        const scrolls = [column, ...Array.from(column.querySelectorAll<HTMLElement>('*'))].filter(
          (node) =>
            !node.closest('pre, table, .code-block') &&
            node.scrollWidth > node.clientWidth + 1 &&
            getComputedStyle(node).overflowX !== 'visible',
        );
        return [
          ...wide.map((node) => `${column.getAttribute('aria-label')}: ${node.tagName}.${node.className} is wider than the column`),
          ...scrolls.map((node) => `${column.getAttribute('aria-label')}: ${node.tagName}.${node.className} scrolls sideways`),
        ];
      }),
  );
}

test('four attempts at 1280 px are tabs with their state, none scrolling sideways; three side by side in a wider window', async ({
  page,
}) => {
  test.setTimeout(240_000);
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.setViewportSize({ width: 1280, height: 800 });
  await conversation(page);
  await askAgents(page, `Which of you does it best?\n\n\`\`\`ts\n${LONG_LINE}\n\`\`\`\n\nsee ${'y'.repeat(160)}`, AGENTS);
  const tabs = page.getByRole('tablist', { name: 'Attempts' });
  for (const agent of AGENTS) {
    await expect(tabs.getByRole('tab', { name: `${agent} done` })).toBeVisible();
  }
  for (const theme of THEMES) {
    for (const width of SIZES) {
      await setLook(page, width, theme);
      for (const agent of AGENTS) {
        await selectAttempt(tabs, agent);
        await expect(page.getByRole('region', { name: `Attempt by ${agent}` })).toContainText('Fake reply: Which of you');
        expect(await columnsOverflow(page), `${agent} at ${width} px, ${theme}`).toEqual([]);
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    }
  }
  // Compare and Keep: framed, and axe finds nothing, in both themes.
  for (const theme of THEMES) {
    await setLook(page, 1280, theme);
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    const compare = page.getByRole('dialog', { name: 'Compare attempts' });
    await expect(compare.getByRole('region', { name: 'Changes by Fake D' })).toBeVisible();
    await expectFramed(compare, `Compare, ${theme}`);
    expect(await axeViolations(page), `axe in Compare, ${theme}`).toEqual([]);
    await compare.getByRole('button', { name: 'Close' }).click();
    await selectAttempt(tabs, 'Fake B');
    const keep = await openKeepDialog(page, 'Fake B');
    await expect(keep.getByRole('button', { name: 'Keep' })).toBeEnabled();
    await expectFramed(keep, `Keep, ${theme}`);
    expect(await axeViolations(page), `axe in Keep, ${theme}`).toEqual([]);
    await keep.getByRole('button', { name: 'Cancel' }).click();
    await expect(keep).toBeHidden();
  }

  // The keyboard moves between the tabs.
  await setLook(page, 1280, 'light');
  await selectAttempt(tabs, 'Fake A');
  await tabs.getByRole('tab', { name: /^Fake A / }).focus();
  await page.keyboard.press('ArrowRight');
  await expect(tabs.getByRole('tab', { name: /^Fake B / })).toBeFocused();
  await expect(tabs.getByRole('tab', { name: /^Fake B / })).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('region', { name: 'Attempt by Fake B' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Attempt by Fake A' })).toBeHidden();
  await page.screenshot({ path: path.join(ARTIFACTS, 'attempts-tabs-1280-light.png') });

  // Three attempts in a wider window: side by side, no tabs, none scrolling sideways.
  await page.getByRole('button', { name: 'Set these attempts aside' }).click();
  await expect(page.getByRole('note').filter({ hasText: 'These attempts were set aside' })).toBeVisible();
  await page.setViewportSize({ width: 1600, height: 900 });
  await askAgents(page, 'And which of you three?', AGENTS.slice(0, 3));
  const three = page.getByRole('region', { name: 'Asked 3 agents' });
  for (const agent of AGENTS.slice(0, 3)) {
    await expect(three.getByRole('region', { name: `Attempt by ${agent}` })).toContainText('Fake reply: And which of you three?');
  }
  await expect(three.getByRole('tablist')).toHaveCount(0);
  expect(await columnsOverflow(page)).toEqual([]);
  await three.scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(ARTIFACTS, 'attempts-three-1600-light.png') });
});
