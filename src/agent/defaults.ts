// The defaults of a run, shared by agent.yaml and the library's runAgent so that a run
// started either way behaves (and fingerprints) the same.
import { MCP_CALL_TIMEOUT_MS, MCP_OUTPUT_LIMIT_BYTES } from "../tools/mcp/mcp-defaults.js";

export const AGENT_DEFAULTS = {
  system: "You are a helpful assistant.",
  maxOutputTokens: 8192,
  maxTokens: 200_000,
  maxIterations: 50,
  callTimeoutMs: 120_000,
  mcpCallTimeoutMs: MCP_CALL_TIMEOUT_MS,
  mcpOutputLimitBytes: MCP_OUTPUT_LIMIT_BYTES,
  retryAttempts: 4,
  retryBaseDelayMs: 1000,
  /** How deep sub-agents may nest: a child is 1, its child 2, ... */
  maxDepth: 3,
} as const;
