/**
 * The page tests launch Chromium with one `--disable-features` of their own, which replaces the one
 * Playwright gives (Chromium reads only the last): it repeats Playwright's list, so that list must be
 * the installed Playwright's.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, PLAYWRIGHT_DISABLED_FEATURES } from '../e2e/fixtures/chromium.js';

/** The features the installed Playwright turns off in every Chromium it launches, read from its own code. */
function playwrightsList(): string[] {
  const folder = path.dirname(createRequire(import.meta.url).resolve('playwright-core/package.json'));
  const code = readFileSync(path.join(folder, 'lib', 'coreBundle.js'), 'utf8');
  const list = /disabledFeatures = \[([\s\S]*?)\]\.filter\(Boolean\)/.exec(code)?.[1];
  if (list === undefined) {
    throw new Error(`Playwright's list of disabled Chromium features was not found in ${folder}/lib/coreBundle.js`);
  }
  return [...list.replace(/\/\/.*$/gm, '').matchAll(/"([^"]+)"/g)].map((match) => match[1]!);
}

describe("the page tests' Chromium", () => {
  it("turns off what Playwright turns off, and the address bar's suggestion popups", () => {
    const playwrights = playwrightsList();
    expect(PLAYWRIGHT_DISABLED_FEATURES).toEqual(playwrights);
    const features = CHROMIUM_ARGS.filter((arg) => arg.startsWith('--disable-features='));
    expect(features).toHaveLength(1);
    expect(features[0]!.split('=')[1]!.split(',')).toEqual(expect.arrayContaining([...playwrights, 'WebUIOmniboxPopup']));
  });
});
