/**
 * What the agent's requests and updates in one live session reach: its updates and its subagents'
 * (`SessionUpdates`), the person's answers to permissions and requests for input, and the session's
 * files and terminals. A request in the session's name that acts (input, a file read or written, a
 * new command) needs a running turn of its conversation (`SessionGate`); a file written is
 * recorded in that turn; the session's own terminals stay its own to read and end.
 */
import path from 'node:path';
import type { SessionHandlers } from '../acp/AgentConnection.js';
import type { LiveSessionOwner } from './SessionOwner.js';
import type { SessionElicitations } from './SessionElicitations.js';
import type { SessionFiles } from './SessionFiles.js';
import type { SessionGate } from './SessionGate.js';
import type { SessionPermissions } from './SessionPermissions.js';
import type { SessionTerminals } from './SessionTerminals.js';
import type { SessionUpdates } from './SessionUpdates.js';

/** The parts of a live session its handlers answer with. */
export type SessionHandlerParts = {
  /** The session's working folder (written files are recorded relative to it). */
  cwd: string;
  owner: LiveSessionOwner;
  gate: SessionGate;
  updates: SessionUpdates;
  permissions: SessionPermissions;
  elicitations: SessionElicitations;
  files: SessionFiles;
  terminals: SessionTerminals;
};

/** The handlers of one live session. */
export function sessionHandlers(parts: SessionHandlerParts): SessionHandlers {
  const { cwd, owner, gate, updates, permissions, elicitations, files, terminals } = parts;
  return {
    onUpdate: (update) => updates.apply(update),
    onSubagentUpdate: (subagentId, update) => updates.applySubagent(subagentId, update),
    requestPermission: (request, signal) => permissions.request(request, signal),
    elicit: (request, signal) => {
      gate.require('ask you for input', 'toolCallId' in request && typeof request.toolCallId === 'string' ? request.toolCallId : undefined);
      return elicitations.request(request, signal, owner);
    },
    onElicitationComplete: (elicitationId) => elicitations.complete(elicitationId, owner),
    files: {
      read: (file, line, limit) => {
        gate.require(`read ${file}`);
        return files.read(file, line, limit);
      },
      write: async (file, content) => {
        gate.require(`write ${file}`);
        const written = await files.write(file, content);
        const turnId = owner.activeTurnId();
        if (turnId) {
          const relative = path.relative(cwd, written.path) || written.path;
          owner.commit([{ type: 'file.written', payload: { turnId, path: relative, bytes: written.bytes, created: written.created } }]);
        }
      },
    },
    terminals: {
      create: (request) => {
        gate.require(`run ${request.command}`);
        return terminals.create(request);
      },
      output: (terminalId) => terminals.output(terminalId),
      waitForExit: (terminalId) => terminals.waitForExit(terminalId),
      kill: (terminalId) => terminals.kill(terminalId),
      release: (terminalId) => terminals.release(terminalId),
    },
  };
}
