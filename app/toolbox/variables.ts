/**
 * Variable references in imported server values, kept as written and resolved only when a
 * session is prepared, in the syntax of the file they came from. A reference to something unset
 * stays as written (as Claude Code does), so nothing is silently emptied.
 */
import type { VariableSyntax } from './catalog.js';

/** What references may name. */
export type VariableScope = { env: Readonly<Record<string, string | undefined>>; workspaceFolder: string; userHome: string };

const PATTERNS: Record<Exclude<VariableSyntax, 'none'>, RegExp> = {
  // ${VAR} and ${VAR:-default}
  claude: /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
  // ${env:NAME}, ${userHome}, ${workspaceFolder}
  cursor: /\$\{(env:[A-Za-z_][A-Za-z0-9_]*|userHome|workspaceFolder)\}/g,
  vscode: /\$\{(env:[A-Za-z_][A-Za-z0-9_]*|userHome|workspaceFolder)\}/g,
  windsurf: /\$\{(env:[A-Za-z_][A-Za-z0-9_]*)\}/g,
  // $VAR and ${VAR}
  gemini: /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g,
};

/** `value` with its references resolved in `syntax`. */
export function resolveVariables(value: string, syntax: VariableSyntax, scope: VariableScope): string {
  if (syntax === 'none') {
    return value;
  }
  return value.replace(PATTERNS[syntax], (whole: string, first: string | undefined, second: string | undefined) => {
    if (syntax === 'claude') {
      const set = scope.env[first ?? ''];
      return set !== undefined ? set : second !== undefined ? second : whole;
    }
    if (syntax === 'gemini') {
      return scope.env[first ?? second ?? ''] ?? whole;
    }
    const name = first ?? '';
    if (name === 'userHome') {
      return scope.userHome;
    }
    if (name === 'workspaceFolder') {
      return scope.workspaceFolder;
    }
    return scope.env[name.slice('env:'.length)] ?? whole;
  });
}
