/** The digest of every input of the build under `root` (names and contents). */
export function buildInputsDigest(root: string): string;
/** Folders whose files the build reads. */
export const INPUT_FOLDERS: readonly string[];
/** Single files the build reads. */
export const INPUT_FILES: readonly string[];
