/**
 * Quirk of OpenCode 1.18 (opencode-ai 1.18.33, seen in the tour's page test): at start it migrates
 * its database in its data folder. Two processes started at once on one home (a conversation's
 * early session beside the card's look at the agent) both migrate; one fails ("Failed query:
 * CREATE TABLE `workspace` …", exit code 1) before it answers `initialize`. Its processes are
 * started one at a time: the next once the one before has answered.
 */
export const opencodeStartsAlone = { startsAlone: true } as const;
