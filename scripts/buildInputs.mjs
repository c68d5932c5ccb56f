// What the build is made from, as one digest: every file of the sources it compiles and bundles,
// its configuration and the locked dependencies. `build.mjs --if-changed` builds only when the
// digest differs from the one stamped on the last build (dist/.build-inputs).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Folders whose files the build reads. */
export const INPUT_FOLDERS = ['app', 'main', 'renderer', 'bench', 'e2e/fixtures'];
/** Single files the build reads. */
export const INPUT_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.base.json',
  'tsconfig.node.json',
  'tsconfig.renderer.json',
  'vite.config.ts',
  'scripts/build.mjs',
  'scripts/buildInputs.mjs',
  'scripts/ensureBuilt.mjs',
];

/** Files (relative, with `/`) under `folder`, sorted; dependency and output folders are not inputs. */
function filesUnder(root, folder) {
  const found = [];
  const visit = (relative) => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist') {
        continue;
      }
      const child = `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        visit(child);
      } else if (entry.isFile()) {
        found.push(child);
      }
    }
  };
  if (existsSync(path.join(root, folder))) {
    visit(folder);
  }
  return found.sort();
}

/** The digest of every input of the build under `root` (names and contents). */
export function buildInputsDigest(root) {
  const hash = createHash('sha256');
  const files = [
    ...INPUT_FOLDERS.flatMap((folder) => filesUnder(root, folder)),
    ...INPUT_FILES.filter((file) => existsSync(path.join(root, file))),
  ];
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}
