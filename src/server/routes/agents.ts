// Agents: the configured agents a client may start runs of, by name, with their model,
// tools and which tools wait for a person's approval.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { ServerError } from "../problem.js";
import { AgentParams } from "../schemas.js";
import type { ServedAgent, ServerContext, ServerEnv } from "../server-context.js";
import { json, route } from "./route.js";

const AgentSchema = z
  .object({
    name: z.string(),
    provider: z.string(),
    model: z.string(),
    tools: z.array(z.object({ name: z.string(), description: z.string(), approval: z.boolean().openapi({ description: "each call waits for a decision" }) })),
  })
  .openapi("Agent");

const list = route("read", {
  method: "get",
  path: "/v1/agents",
  summary: "the agents served",
  responses: { 200: { content: json(z.object({ agents: z.array(AgentSchema) })), description: "the agents" } },
});

const describe = route("read", {
  method: "get",
  path: "/v1/agents/{name}",
  summary: "one agent",
  request: { params: AgentParams },
  responses: { 200: { content: json(AgentSchema), description: "the agent" } },
});

function agentJson({ name, spec }: ServedAgent): z.infer<typeof AgentSchema> {
  const tools = spec.tools.map((tool) => ({ name: tool.name, description: tool.description, approval: tool.confirm !== false }));
  return { name, provider: spec.provider.name, model: spec.model, tools };
}

export function agentRoutes(app: OpenAPIHono<ServerEnv>, context: ServerContext): void {
  app.openapi(list, (c) => c.json({ agents: [...context.agents.values()].map(agentJson) }, 200));
  app.openapi(describe, (c) => {
    const { name } = c.req.valid("param");
    const agent = context.agents.get(name);
    if (agent === undefined) throw new ServerError("ERR_NO_AGENT", `no agent ${JSON.stringify(name)} is served here: GET /v1/agents lists them`);
    return c.json(agentJson(agent), 200);
  });
}
