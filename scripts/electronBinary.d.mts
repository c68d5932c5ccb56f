/** Absolute path of the Electron executable, or undefined when none was downloaded. */
export function electronBinary(): string | undefined;
