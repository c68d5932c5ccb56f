// `npm run package -- --linux|--mac|--win`: packages Baton with electron-builder, but only once the
// update feed and the signing settings it needs are set, so no build ships that cannot be updated
// safely. Each missing setting is named; nothing is built until all are there.
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
  const build = spawnSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) {
    process.exit(build.status ?? 1);
  }
  const result = spawnSync(
    path.join(root, 'node_modules', '.bin', 'electron-builder'),
    targets.map((target) => `--${target}`),
    { cwd: root, stdio: 'inherit' },
  );
  process.exit(result.status ?? 1);
}
