// ESLint rule `baton/layers`: the one-way import rule of docs/architecture.md as code.
// Each file belongs to a layer by its path; each import is classified (a layer, node:*, electron,
// react/DOM libraries, or another package) and checked against what that layer may import.
import { builtinModules } from 'node:module';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

const LAYERS = [
  ['app', 'app/'],
  ['host', 'main/host/'],
  ['electron-shell', 'main/electron/'],
  ['web', 'main/web/'],
  ['renderer', 'renderer/'],
  ['e2e', 'e2e/'],
  ['scripts', 'scripts/'],
  ['bench', 'bench/'],
];

/**
 * The host core's inner floors, bottom up (docs/architecture.md): a folder of main/host may import
 * at run time from its own floor and the ones below, never from above (a type may come from above:
 * it is gone once compiled). A new folder must be given its floor here.
 */
const HOST_FLOORS = {
  machine: 1,
  files: 1,
  process: 1,
  log: 1,
  'sha256.ts': 1,
  'ownFiles.ts': 1,
  store: 2,
  acp: 2,
  adapters: 3,
  instructions: 4,
  toolbox: 4,
  binding: 5,
  pool: 6,
  agents: 7,
  conversations: 8,
  checkpoints: 9,
  attempts: 10,
  handlers: 11,
  'Host.ts': 12,
};

/** The floor of a file under main/host (its first folder, or the file itself at the top), if it is one. */
function hostRoom(file) {
  const relative = path
    .relative(path.join(root, 'main', 'host'), file)
    .split(path.sep)
    .join('/');
  if (relative.startsWith('..')) {
    return undefined;
  }
  const room = relative.includes('/') ? relative.split('/')[0] : relative.replace(/\.js$/, '.ts');
  return { room, floor: HOST_FLOORS[room] };
}

/** Why an import between two host rooms breaks the floors, if it does. */
function floorVerdict(fromFile, specifier, typeOnly) {
  if (!specifier.startsWith('.')) {
    return undefined;
  }
  const from = hostRoom(fromFile);
  const to = hostRoom(path.resolve(path.dirname(fromFile), specifier));
  if (!from || !to || from.room === to.room) {
    return undefined;
  }
  for (const side of [from, to]) {
    if (side.floor === undefined) {
      return `main/host/${side.room} has no floor: give it one in HOST_FLOORS (scripts/eslint/layers.mjs) and docs/architecture.md`;
    }
  }
  if (to.floor > from.floor && !typeOnly) {
    return `main/host/${from.room} (floor ${from.floor}) may not import main/host/${to.room} (floor ${to.floor}) at run time: a lower floor never depends on a higher one (a type may: use \`import type\`)`;
  }
  return undefined;
}

/**
 * The machine floor: in main/ (the host, the web host and the shell), only main/host/machine/
 * starts processes or watches folders, so that each does it on the machine the folder is on (this
 * computer, or a remote through its server). The two processes Baton's own helper programs start
 * where they run (the MCP launcher's server, the web host's browser) are started there too
 * (machine/helperChildren.ts): no file is excepted.
 */
const MACHINE_ROOM = 'main/host/machine/';
const PROCESS_MODULES = new Set(['node:child_process', 'child_process']);
const FS_MODULES = new Set(['node:fs', 'fs', 'node:fs/promises', 'fs/promises']);
const WATCHES = new Set(['watch', 'watchFile']);
const MACHINE_ONLY = {
  process: "only main/host/machine/ starts processes: ask the folder's Machine (spawn, exec)",
  watch: "only main/host/machine/ watches folders: ask the folder's Machine (watchFolder)",
  files:
    "node:fs is for main/host/machine/, store/, log/ and the secret box: read and write through the folder's Machine (readFile, writeConfined, stat, list, realpath)",
};

/** Besides the machine floor, the rooms that keep the host's own data on this computer. */
const OWN_DATA = ['main/host/store/', 'main/host/log/', 'main/host/toolbox/SecretBox.ts'];

/** True for a host source file that may not import node:fs: outside the machine floor and the rooms of the host's own data. */
function keptOffTheDisk(file, isTest) {
  const relative = path.relative(root, file).split(path.sep).join('/');
  return keptOffTheMachine(file, isTest) && relative.startsWith('main/host/') && !OWN_DATA.some((room) => relative.startsWith(room));
}

/** True for a source file of main/ (not a test) outside the machine floor: its processes and watches go through a Machine. */
function keptOffTheMachine(file, isTest) {
  const relative = path.relative(root, file).split(path.sep).join('/');
  return !isTest && relative.startsWith('main/') && !relative.startsWith(MACHINE_ROOM);
}

const REACT = new Set(['react', 'react-dom', 'react-markdown', 'remark-gfm', 'zustand', '@tanstack/react-virtual']);
const NODE = new Set(builtinModules);

/** What each layer may import: layers by name, plus the kinds node / electron / react / packages. */
const ALLOWED = {
  // re2js: pure linear-time regular expressions, for rules from trusted folders.
  app: { layers: ['app'], node: false, electron: false, react: false, packages: ['zod', 're2js'] },
  host: { layers: ['app', 'host'], node: true, electron: false, react: false, packages: true },
  'electron-shell': { layers: ['app', 'host', 'electron-shell', 'web'], node: true, electron: true, react: false, packages: true },
  web: { layers: ['app', 'host', 'web'], node: true, electron: false, react: false, packages: true },
  renderer: { layers: ['app', 'renderer'], node: false, electron: false, react: true, packages: true },
  e2e: { layers: ['e2e', 'scripts'], typeOnly: ['app'], node: true, electron: false, react: false, packages: true },
  // Build and test tooling: Node scripts that import no application code.
  scripts: { layers: ['scripts'], node: true, electron: false, react: false, packages: true },
  // Benchmarks measure the host core in plain Node, with the test fixtures (model stub, agent
  // homes) and a real browser through Playwright; never the Electron shell, the web host or React.
  bench: { layers: ['bench', 'app', 'host', 'e2e'], node: true, electron: false, react: false, packages: true },
};

function layerOf(file) {
  const relative = path.relative(root, file).split(path.sep).join('/');
  return LAYERS.find(([, prefix]) => relative.startsWith(prefix))?.[0];
}

function classify(specifier, fromFile) {
  if (specifier.startsWith('.') || specifier.startsWith('/')) {
    const target = path.resolve(path.dirname(fromFile), specifier);
    return { kind: 'layer', layer: layerOf(target) ?? 'outside' };
  }
  const bare = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
  if (specifier.startsWith('node:') || NODE.has(bare)) {
    return { kind: 'node' };
  }
  if (bare === 'electron') {
    return { kind: 'electron' };
  }
  if (REACT.has(bare)) {
    return { kind: 'react' };
  }
  return { kind: 'package', name: bare };
}

function verdict(fromLayer, target, typeOnly, isTest) {
  const rules = ALLOWED[fromLayer];
  switch (target.kind) {
    case 'layer':
      if (rules.layers.includes(target.layer)) {
        return undefined;
      }
      if (typeOnly && rules.typeOnly?.includes(target.layer)) {
        return undefined;
      }
      // Tests next to the code may use the shared test fixtures.
      if (isTest && target.layer === 'e2e') {
        return undefined;
      }
      return `${fromLayer} may not import from ${target.layer}${rules.typeOnly?.includes(target.layer) ? ' (types only: use `import type`)' : ''}`;
    case 'node':
      return rules.node ? undefined : `${fromLayer} may not import Node built-ins`;
    case 'electron':
      return rules.electron ? undefined : `${fromLayer} may not import electron`;
    case 'react':
      return rules.react ? undefined : `${fromLayer} may not import React or DOM libraries`;
    default:
      if (rules.packages === true || rules.packages.includes(target.name) || (isTest && target.name === 'vitest')) {
        return undefined;
      }
      return `${fromLayer} may import only ${rules.packages.join(', ')} from packages, not ${target.name}`;
  }
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Enforce the one-way import rule between Baton layers' },
    messages: { forbidden: '{{reason}} ("{{specifier}}").' },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const fromLayer = layerOf(file);
    if (!fromLayer) {
      return {};
    }
    const isTest = /\.test\.tsx?$/.test(file);
    const offMachine = keptOffTheMachine(file, isTest);
    const offDisk = keptOffTheDisk(file, isTest);
    /** Local names of the `fs` module itself (`import fs from 'node:fs'`, `import * as fs`). */
    const fsNames = new Set();
    const machineOnly = (node, reason, specifier) => context.report({ node, messageId: 'forbidden', data: { reason, specifier } });
    const check = (node, source, typeOnly) => {
      if (!source || typeof source.value !== 'string') {
        return;
      }
      const reason =
        verdict(fromLayer, classify(source.value, file), typeOnly, isTest) ??
        (fromLayer === 'host' && !isTest ? floorVerdict(file, source.value, typeOnly) : undefined);
      if (reason) {
        context.report({ node, messageId: 'forbidden', data: { reason, specifier: source.value } });
      }
    };
    return {
      // `import { type A, type B }` is gone once compiled, like `import type`.
      ImportDeclaration: (node) => {
        const typeOnly =
          node.importKind === 'type' ||
          (node.specifiers.length > 0 && node.specifiers.every((specifier) => specifier.importKind === 'type'));
        check(node, node.source, typeOnly);
        const specifier = node.source.value;
        if (offMachine && !typeOnly && PROCESS_MODULES.has(specifier)) {
          machineOnly(node, MACHINE_ONLY.process, specifier);
        }
        if (offDisk && FS_MODULES.has(specifier)) {
          machineOnly(node, MACHINE_ONLY.files, specifier);
        }
        if (offMachine && FS_MODULES.has(specifier)) {
          for (const imported of node.specifiers) {
            if (imported.type === 'ImportSpecifier' && WATCHES.has(imported.imported.name)) {
              machineOnly(imported, MACHINE_ONLY.watch, `${specifier} ${imported.imported.name}`);
            } else if (imported.type !== 'ImportSpecifier') {
              fsNames.add(imported.local.name);
            }
          }
        }
      },
      MemberExpression: (node) => {
        if (
          offMachine &&
          node.object.type === 'Identifier' &&
          fsNames.has(node.object.name) &&
          node.property.type === 'Identifier' &&
          WATCHES.has(node.property.name)
        ) {
          machineOnly(node, MACHINE_ONLY.watch, `${node.object.name}.${node.property.name}`);
        }
      },
      ExportNamedDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ExportAllDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ImportExpression: (node) => {
        check(node, node.source, false);
        if (offMachine && node.source.type === 'Literal' && PROCESS_MODULES.has(node.source.value)) {
          machineOnly(node, MACHINE_ONLY.process, node.source.value);
        }
        if (offDisk && node.source.type === 'Literal' && FS_MODULES.has(node.source.value)) {
          machineOnly(node, MACHINE_ONLY.files, node.source.value);
        }
      },
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments[0]?.type === 'Literal') {
          check(node, node.arguments[0], false);
          if (offMachine && PROCESS_MODULES.has(node.arguments[0].value)) {
            machineOnly(node, MACHINE_ONLY.process, node.arguments[0].value);
          }
          if (offDisk && FS_MODULES.has(node.arguments[0].value)) {
            machineOnly(node, MACHINE_ONLY.files, node.arguments[0].value);
          }
        }
      },
    };
  },
};

export default { rules: { layers: rule } };
