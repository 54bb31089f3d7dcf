// fisk-ai/mcp: tools from MCP servers, to pass to runAgent. A subpath of its own, so a
// program that imports the package root does not load the MCP SDK.
export { connectMcpServers, McpServerError, type McpServerDefinition, type McpServers, type McpTransportDefinition } from "./mcp-servers.js";
export type { McpCrashPolicies } from "./mcp-names.js";
export type { McpAuthDefinition } from "./mcp-auth.js";
export { answerFromValues, type McpAnswer, type McpElicit, type McpQuestion, type McpQuestionField } from "./mcp-elicitation.js";
export { McpSignInNeededError, type ShowSignInPage } from "./sign-in-provider.js";
