// `npm run package -- --linux|--mac|--win [--keep-registry-snapshot]`: packages Baton with
// electron-builder, but only once the update feed and the signing settings it needs are set, so no
// build ships that cannot be updated safely. Each missing setting is named; nothing is built until
// all are there. The ACP Registry snapshot Baton ships is taken afresh first (see releaseSteps).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The settings a target needs, each with what it is for. */
export function missingPackagingSettings(targets, env) {
  const missing = [];
  if (!/^https:\/\//.test(env.BATON_UPDATE_URL ?? '')) {
    missing.push('BATON_UPDATE_URL: the HTTPS address of the update feed (publish.url in electron-builder.yml)');
  }
  if (targets.includes('mac') && !env.CSC_LINK && !env.CSC_NAME) {
    missing.push('CSC_LINK or CSC_NAME: the Developer ID certificate that signs the macOS app (updates must be signed like it)');
  }
  if (targets.includes('win')) {
    if (!env.WIN_CSC_LINK && !env.CSC_LINK) {
      missing.push('WIN_CSC_LINK or CSC_LINK: the code-signing certificate for the Windows installer');
    }
    if (!env.BATON_WIN_PUBLISHER) {
      missing.push("BATON_WIN_PUBLISHER: the certificate's subject name, which the updater checks every update against");
    }
  }
  return missing;
}

/**
 * What packaging runs, in order: the build; a new dated snapshot of the ACP Registry's index (with
 * its icons) for Baton to ship, so a release never ships an old list (`--keep-registry-snapshot`
 * ships the one in the checkout, when the registry cannot be reached); electron-builder.
 */
export function releaseSteps(targets, flags = []) {
  const snapshot = flags.includes('--keep-registry-snapshot')
    ? []
    : [
        {
          name: 'ACP Registry snapshot',
          command: process.execPath,
          args: [path.join(root, 'scripts', 'registry-snapshot.mjs')],
          onFailure:
            'Baton is not packaged: the ACP Registry snapshot it ships could not be refreshed (see above). Package with --keep-registry-snapshot to ship the one in this checkout.',
        },
      ];
  return [
    { name: 'build', command: process.execPath, args: [path.join(root, 'scripts', 'build.mjs')] },
    ...snapshot,
    {
      name: 'electron-builder',
      command: path.join(root, 'node_modules', '.bin', 'electron-builder'),
      args: targets.map((target) => `--${target}`),
    },
  ];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const targets = process.argv
    .slice(2)
    .filter((arg) => ['--linux', '--mac', '--win'].includes(arg))
    .map((arg) => arg.slice(2));
  if (targets.length === 0) {
    console.error('Name the targets to package: --linux, --mac and/or --win.');
    process.exit(2);
  }
  const missing = missingPackagingSettings(targets, process.env);
  if (missing.length > 0) {
    console.error(`Baton is not packaged: these settings are missing.\n${missing.map((line) => `  - ${line}`).join('\n')}`);
    process.exit(1);
  }
  for (const step of releaseSteps(targets, process.argv.slice(2))) {
    console.log(`\n=== ${step.name} ===`);
    const result = spawnSync(step.command, step.args, { cwd: root, stdio: 'inherit' });
    if (result.status !== 0) {
      if (step.onFailure) {
        console.error(step.onFailure);
      }
      process.exit(result.status ?? 1);
    }
  }
}
