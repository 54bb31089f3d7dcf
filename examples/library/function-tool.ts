// A function tool with a zod schema: the handler's input is typed and validated.
// Run: ANTHROPIC_API_KEY=... node function-tool.js "What is 2 to the power of 10?"
import { AnthropicProvider, defineTool, runAgent } from "fisk-ai";
import * as z from "zod";

const power = defineTool({
  name: "power",
  description: "Raises a number to a power",
  input: z.object({ base: z.number(), exponent: z.int() }),
  run: async ({ base, exponent }) => String(base ** exponent),
});

const outcome = await runAgent({
  provider: new AnthropicProvider({ apiKey: process.env.ANTHROPIC_API_KEY ?? "", baseURL: process.env.ANTHROPIC_BASE_URL }),
  model: "claude-sonnet-4-5",
  prompt: process.argv[2] ?? "What is 2 to the power of 10?",
  tools: [power],
  budget: { maxIterations: 5 },
  events: { toolStarted: (use) => console.error(`calling ${use.name}`) },
});
console.log(outcome.reason === "completed" ? outcome.answer : `stopped: ${outcome.reason}: ${outcome.message}`);
console.error(`${outcome.counters.modelCalls} model calls, ${outcome.counters.toolCalls} tool calls`);
