// The JSON Schema (draft 2020-12) of agent.yaml, generated from the zod schema the loader
// validates with, so an editor's checks and the loader's cannot drift apart: a test checks
// schemas/agent.schema.json against this. It describes what may be written (defaults and
// all); checks that span fields (which MCP server fields go together) are the loader's alone.
import * as z from "zod";
import { AgentConfigSchema } from "./agent-config.js";

/** Its file name in schemas/. */
export const AGENT_SCHEMA_FILE = "agent.schema.json";

export function agentConfigJsonSchema(): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(AgentConfigSchema, { target: "draft-2020-12", io: "input" }) as Record<string, unknown>;
  return {
    $schema,
    $id: `https://choria.io/schemas/io.choria.fisk-ai.v1/${AGENT_SCHEMA_FILE}`,
    title: "fisk-ai agent.yaml",
    description:
      "An agent's configuration: provider, model, system prompt, tools, budgets and the session store. Every key is described in docs/agent-yaml.md.",
    ...rest,
  };
}
