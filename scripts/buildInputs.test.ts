/** The build's input digest: what `npm start` and `npm run web` compare to skip a build when nothing changed. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../e2e/fixtures/agentEnv.js';
import { buildInputsDigest } from './buildInputs.mjs';
import { buildStamp, buildState } from './ensureBuilt.mjs';

function tree(): string {
  const root = tempDir('build-inputs');
  for (const [file, text] of Object.entries({
    'app/a.ts': 'export const a = 1;\n',
    'renderer/b.tsx': 'export {};\n',
    'package-lock.json': '{}\n',
    'scripts/build.mjs': '// build\n',
  })) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

describe('the build inputs digest', () => {
  it('stays the same while no input changes, and changes with any source, its name, or the lock file', () => {
    const root = tree();
    const first = buildInputsDigest(root);
    expect(buildInputsDigest(root)).toBe(first);
    // Output and dependency folders are not inputs.
    mkdirSync(path.join(root, 'main', 'node_modules', 'x'), { recursive: true });
    writeFileSync(path.join(root, 'main', 'node_modules', 'x', 'index.js'), 'x');
    expect(buildInputsDigest(root)).toBe(first);
    writeFileSync(path.join(root, 'app/a.ts'), 'export const a = 2;\n');
    const changed = buildInputsDigest(root);
    expect(changed).not.toBe(first);
    writeFileSync(path.join(root, 'app/c.ts'), 'export const a = 2;\n');
    expect(buildInputsDigest(root)).not.toBe(changed);
    const withC = buildInputsDigest(root);
    writeFileSync(path.join(root, 'package-lock.json'), '{"lockfileVersion":3}\n');
    expect(buildInputsDigest(root)).not.toBe(withC);
  });

  it('says a build is current only while its stamp holds the digest of the inputs as they are', () => {
    const root = tree();
    expect(buildState(root).current).toBe(false);
    mkdirSync(path.dirname(buildStamp(root)), { recursive: true });
    writeFileSync(buildStamp(root), `${buildState(root).digest}\n`);
    expect(buildState(root)).toEqual({ digest: buildInputsDigest(root), current: true });
    writeFileSync(path.join(root, 'renderer/b.tsx'), 'export const b = 1;\n');
    expect(buildState(root).current).toBe(false);
  });
});
