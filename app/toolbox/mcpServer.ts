/** The MCP server shape a session is given: the ACP `McpServer` union, as Baton stores it. */
import { z } from 'zod';

const nameValue = z.object({ name: z.string(), value: z.string() });

/** One MCP server for a session (stdio, http or sse), in ACP's shape. */
export const mcpServerSchema = z.union([
  z.object({ type: z.literal('http'), name: z.string(), url: z.string(), headers: z.array(nameValue) }),
  z.object({ type: z.literal('sse'), name: z.string(), url: z.string(), headers: z.array(nameValue) }),
  z.object({ name: z.string(), command: z.string(), args: z.array(z.string()), env: z.array(nameValue) }),
]);

/** One MCP server for a session (stdio, http or sse), in ACP's shape. */
export type McpServer = z.infer<typeof mcpServerSchema>;
