// How an MCP server's tools are named to the model and which crash policy each has: in a
// module of its own so `session show` can say it without loading the SDK.
import type { CrashPolicy } from "../tool.js";

/** One policy for every tool of a server, or one per tool name (others rerun). */
export type McpCrashPolicies = CrashPolicy | Readonly<Record<string, CrashPolicy>>;

const SEPARATOR = "__";

export function mcpToolName(server: string, tool: string): string {
  return `${server}${SEPARATOR}${tool}`;
}

export function mcpCrashPolicy(policies: McpCrashPolicies, tool: string): CrashPolicy {
  return typeof policies === "string" ? policies : (policies[tool] ?? "rerun");
}

/** The policy of the tool the model knows as `name`, if it is one of these servers'. */
export function crashPolicyAmong(servers: readonly { name: string; on_crash: McpCrashPolicies }[], name: string): CrashPolicy | undefined {
  for (const server of servers) {
    const prefix = mcpToolName(server.name, "");
    if (name.startsWith(prefix)) return mcpCrashPolicy(server.on_crash, name.slice(prefix.length));
  }
  return undefined;
}
