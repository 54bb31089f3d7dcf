// The MCP tools' defaults, apart from the SDK, so agent.yaml's defaults can name them
// without loading it.

/** How long one MCP tool call may take before it is an is_error result. */
export const MCP_CALL_TIMEOUT_MS = 30_000;
