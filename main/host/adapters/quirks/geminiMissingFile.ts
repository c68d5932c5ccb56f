/**
 * Quirk of Gemini CLI (measured with 0.61.0; its source does the same today): before writing a
 * file it reads it through the client to learn whether it exists, and takes only an error whose
 * text says "not found" as "no such file". But its ACP connection rejects with the JSON-RPC error
 * object itself, which it turns into text as "[object Object]", so Baton's -32002 "No such file"
 * is taken for an unreadable file and a new file can never be created ("Error checking existing
 * file"). A read of a missing file inside the session's folder is answered with no content, which
 * Gemini takes as an empty file it may write; one outside the folder is refused as for any agent.
 */
export const geminiMissingFile = { missingFileReadsAsEmpty: (_version: string | undefined): boolean => true } as const;
