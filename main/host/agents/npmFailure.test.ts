/** npm's failures in one sentence: its meaningful line, never its usage text or the fields around it. */
import { describe, expect, it } from 'vitest';
import { lastMeaningfulLine, missingPackage, platformPart, unreachableRegistry } from './npmFailure.js';

/** What npm 11.19 printed for `npm ci` on a lock out of sync (shortened): the cause first, then its whole usage text. */
const OUT_OF_SYNC = [
  'npm warn EBADENGINE Unsupported engine {',
  "npm warn EBADENGINE   package: '@qwen-code/qwen-code@0.24.4',",
  'npm warn EBADENGINE }',
  'npm error code EUSAGE',
  'npm error',
  'npm error `npm ci` can only install packages when your package.json and package-lock.json or npm-shrinkwrap.json are in sync. Please update your lock file with `npm install` before continuing.',
  'npm error',
  'npm error Missing: @teddyzhu/clipboard-darwin-arm64@ from lock file',
  'npm error',
  'npm error Clean install a project',
  'npm error',
  'npm error Usage:',
  'npm error npm ci',
  'npm error',
  'npm error Options:',
  'npm error [--install-strategy <hoisted|nested|shallow|linked>] [--legacy-bundling]',
  'npm error aliases: clean-install, ic, install-clean, isntall-clean',
  'npm error',
  'npm error Run "npm help ci" for more info',
  'npm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log',
].join('\n');

describe('npm failures', () => {
  it("says what went wrong from npm's first meaningful error line, not its usage text", () => {
    expect(lastMeaningfulLine(OUT_OF_SYNC)).toBe(
      '`npm ci` can only install packages when your package.json and package-lock.json or npm-shrinkwrap.json are in sync. Please update your lock file with `npm install` before continuing.',
    );
    expect(
      lastMeaningfulLine(
        "npm error code ENOENT\nnpm error syscall open\nnpm error path /x/package.json\nnpm error enoent ENOENT: no such file or directory, open '/x/package.json'",
      ),
    ).toBe("ENOENT: no such file or directory, open '/x/package.json'");
  });

  it('names an unreachable registry with the mirror setting, a missing package, and the platform part of a package built per platform', () => {
    expect(
      unreachableRegistry('npm error code ECONNREFUSED\nnpm error errno ECONNREFUSED', { npm_config_registry: 'http://127.0.0.1:9/' }),
    ).toContain('(http://127.0.0.1:9/: ECONNREFUSED)');
    expect(unreachableRegistry(OUT_OF_SYNC, {})).toBeUndefined();
    expect(missingPackage('npm error notarget No matching version found for @kilocode/cli-linux-x64@7.8.1.')).toBe(
      '@kilocode/cli-linux-x64@7.8.1',
    );
    expect(missingPackage('npm error 404 Not Found - GET https://registry.npmjs.org/@scope%2fnope - Not found')).toBe('@scope/nope');
    expect(
      platformPart(
        { '@kilocode/cli-darwin-arm64': '7.8.1', '@kilocode/cli-linux-x64-baseline': '7.8.1', '@kilocode/cli-linux-x64': '7.8.1' },
        'linux',
        'x64',
      ),
    ).toBe('@kilocode/cli-linux-x64@7.8.1');
    expect(platformPart({ '@kilocode/cli-windows-x64': '1.0.0' }, 'win32', 'x64')).toBe('@kilocode/cli-windows-x64@1.0.0');
  });
});
