// A function tool with a zod schema: the handler's input is typed and validated.
// Run (after npm run build:test): node .test-build/examples/library/function-tool.js
// Offline, the script provider plays the model's side; with ANTHROPIC_API_KEY set, Claude does.
import { AnthropicProvider, defineTool, runAgent, ScriptProvider } from "fisk-ai";
import * as z from "zod";

const power = defineTool({
  name: "power",
  description: "Raises a number to a power",
  input: z.object({ base: z.number(), exponent: z.int() }),
  run: async ({ base, exponent }) => String(base ** exponent),
});

const key = process.env.ANTHROPIC_API_KEY;
const outcome = await runAgent({
  ...(key
    ? { provider: new AnthropicProvider({ apiKey: key, baseURL: process.env.ANTHROPIC_BASE_URL }), model: "claude-sonnet-4-5" }
    : {
        provider: new ScriptProvider({
          turns: [{ tool_calls: [{ name: "power", input: { base: 2, exponent: 10 } }] }, { text: "2 to the power of 10 is 1024." }],
        }),
        model: "script-demo",
      }),
  prompt: process.argv[2] ?? "What is 2 to the power of 10?",
  tools: [power],
  budget: { maxIterations: 5 },
  events: { toolStarted: (use) => console.error(`calling ${use.name}`) },
});
console.log(outcome.reason === "completed" ? outcome.answer : `stopped: ${outcome.reason}: ${outcome.message}`);
console.error(`model calls: ${outcome.counters.modelCalls}, tool calls: ${outcome.counters.toolCalls}`);
