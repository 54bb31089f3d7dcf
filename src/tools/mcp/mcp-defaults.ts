// The MCP tools' defaults, apart from the SDK, so agent.yaml's defaults can name them
// without loading it.

/** How long one MCP tool call may take before it is an is_error result. */
export const MCP_CALL_TIMEOUT_MS = 30_000;

/**
 * How much of an MCP tool's result is kept (its text's bytes, an image's base64): more than
 * a command tool's, as a screenshot is often larger than a page of text.
 */
export const MCP_OUTPUT_LIMIT_BYTES = 1024 * 1024;
