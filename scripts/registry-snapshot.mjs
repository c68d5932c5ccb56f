// `node scripts/registry-snapshot.mjs [address]` (after `npm run build`): takes a new snapshot of
// the ACP Registry's index for Baton to ship (main/host/agents/registry/snapshot.json), dated
// today. The address is the registry's CDN unless given: another URL, or a file (a checkout of
// agentclientprotocol/registry builds its index with `npm run build`). The index is checked with
// the same parser Baton uses; the snapshot is refused when it holds an entry Baton cannot read,
// so a format change is seen here rather than by people using Baton. Each entry's icon (SVG only)
// ships in the snapshot too. `BATON_SNAPSHOT_FILE` writes it elsewhere (tests).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const built = process.env.BATON_BUILT ?? path.join(root, 'dist');
const { parseRegistryIndex, looksLikeSvg } = await import(pathToFileURL(path.join(built, 'app/agents/registry.js')).href);
const { DEFAULT_REGISTRY_URL, MAX_ICON_BYTES } = await import(
  pathToFileURL(path.join(built, 'main/host/agents/registry/AgentRegistry.js')).href
);

const address = process.argv[2] ?? DEFAULT_REGISTRY_URL;
let text;
if (/^https?:\/\//.test(address)) {
  const response = await fetch(address, { signal: AbortSignal.timeout(30_000) });
  if (!response.ok) {
    console.error(`${address} answered ${response.status} ${response.statusText}.`);
    process.exit(1);
  }
  text = await response.text();
} else {
  text = readFileSync(address.startsWith('file:') ? fileURLToPath(address) : address, 'utf8');
}

let index;
try {
  index = parseRegistryIndex(text);
} catch (error) {
  console.error(`The index at ${address} cannot be used: ${error.message}.`);
  process.exit(1);
}
if (index.skipped.length > 0) {
  console.error(
    `Baton cannot read ${index.skipped.length} of its entries:\n${index.skipped.map((entry) => `  ${entry.id}: ${entry.reason}`).join('\n')}`,
  );
  console.error("Update app/agents/registry.ts for the registry's format first.");
  process.exit(1);
}

const base = /^https?:\/\//.test(address) ? address : pathToFileURL(path.resolve(address.replace(/^file:\/\//, ''))).href;

/** An icon's SVG: a relative one is looked for in the entry's own folder first (the registry's sources keep `<id>/icon.svg`). */
async function iconOf(agent) {
  const tried = [...new Set([new URL(agent.icon, new URL(`${agent.id}/`, base)).href, new URL(agent.icon, base).href])];
  for (const source of tried) {
    try {
      const svg = source.startsWith('file:')
        ? readFileSync(fileURLToPath(source), 'utf8')
        : await fetch(source, { signal: AbortSignal.timeout(30_000) }).then((response) => (response.ok ? response.text() : undefined));
      if (svg !== undefined && Buffer.byteLength(svg) <= MAX_ICON_BYTES && looksLikeSvg(svg)) {
        return svg;
      }
    } catch {
      // The next place, or no icon.
    }
  }
  return undefined;
}

// Icons ship with the list: offline, every agent still shows its own (never markup of another kind).
const icons = {};
for (const agent of index.agents.filter((entry) => entry.icon)) {
  const svg = await iconOf(agent);
  if (svg === undefined) {
    console.log(`No icon shipped for ${agent.id}: ${agent.icon} was not an SVG that could be had.`);
  } else {
    icons[agent.id] = svg;
  }
}

const target = process.env.BATON_SNAPSHOT_FILE ?? path.join(root, 'main/host/agents/registry/snapshot.json');
const snapshot = {
  takenAt: new Date().toISOString().slice(0, 10),
  from: /^https?:\/\//.test(address) ? address : DEFAULT_REGISTRY_URL,
  index: JSON.parse(text),
  icons,
};
writeFileSync(target, `${JSON.stringify(snapshot, null, 1)}\n`);
console.log(
  `Wrote ${path.relative(root, target)}: ${index.agents.length} agents, ${Object.keys(icons).length} icons, taken ${snapshot.takenAt}.`,
);
