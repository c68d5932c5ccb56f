/** Packaging's steps: the registry snapshot Baton ships is taken afresh on every release, unless kept on purpose. */
import { describe, expect, it } from 'vitest';
import { releaseSteps } from './package.mjs';

describe('packaging', () => {
  it('builds, takes a new ACP Registry snapshot, then runs electron-builder for the targets', () => {
    const steps = releaseSteps(['linux', 'win']);
    expect(steps.map((step) => step.name)).toEqual(['build', 'ACP Registry snapshot', 'electron-builder']);
    expect(steps[1]!.args.at(-1)).toMatch(/scripts\/registry-snapshot\.mjs$/);
    expect(steps[1]!.onFailure).toContain('--keep-registry-snapshot');
    expect(steps[2]!.args).toEqual(['--linux', '--win']);
  });

  it('ships the snapshot of the checkout only when asked to', () => {
    expect(releaseSteps(['mac'], ['--mac', '--keep-registry-snapshot']).map((step) => step.name)).toEqual(['build', 'electron-builder']);
  });
});
