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

const REACT = new Set(['react', 'react-dom', 'react-markdown', 'remark-gfm', 'zustand', '@tanstack/react-virtual']);
const NODE = new Set(builtinModules);

/** What each layer may import: layers by name, plus the kinds node / electron / react / packages. */
const ALLOWED = {
  app: { layers: ['app'], node: false, electron: false, react: false, packages: ['zod', 're2js'] }, // re2js: pure linear-time regular expressions, for rules from trusted folders
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
    const check = (node, source, typeOnly) => {
      if (!source || typeof source.value !== 'string') {
        return;
      }
      const reason = verdict(fromLayer, classify(source.value, file), typeOnly, isTest);
      if (reason) {
        context.report({ node, messageId: 'forbidden', data: { reason, specifier: source.value } });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, node.source, node.importKind === 'type'),
      ExportNamedDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ExportAllDeclaration: (node) => check(node, node.source, node.exportKind === 'type'),
      ImportExpression: (node) => check(node, node.source, false),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require' && node.arguments[0]?.type === 'Literal') {
          check(node, node.arguments[0], false);
        }
      },
    };
  },
};

export default { rules: { layers: rule } };
