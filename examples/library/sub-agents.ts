// A lead agent whose researcher tool is another agent (docs/sub-agents.md, which shows this
// file from its import on): each call runs researcher.yaml as a child session in the lead's store.
// Run (after npm run build:test), in a directory of your own:
//   node .test-build/examples/library/sub-agents.js examples/sub-agents/researcher.yaml
// Offline: the script provider plays the lead, and researcher.yaml's script the researchers.
import { agentTool, FileStore, loadAgent, runAgent, ScriptProvider } from "fisk-ai";

const researcher = agentTool({
  name: "researcher",
  description: "Researches one topic and answers with what it found.",
  agent: async () => loadAgent(process.argv[2] ?? "researcher.yaml"), // or { provider, model, system, tools, budget }
  maxDepth: 2,
});
const provider = new ScriptProvider({
  turns: [
    {
      text: "Asking two researchers at once.",
      tool_calls: [
        { name: "researcher", input: { prompt: "Note what milk costs", title: "Milk" } },
        { name: "researcher", input: { prompt: "Note what bread costs", title: "Bread" } },
      ],
    },
    { text: "Both researchers noted their findings in research.txt." },
  ],
});
const store = new FileStore({ dir: "./sessions" });
// The lead's script goes on whatever its tools answer, so each researcher's own result is checked too.
const failed: string[] = [];
const events = { toolFinished: (_use: unknown, result: { is_error?: boolean; content: unknown }) => result.is_error && failed.push(String(result.content)) };
const outcome = await runAgent({ provider, model: "script-demo", tools: [researcher], parallelTools: true, store, prompt: "Research prices", events });
if (outcome.reason !== "completed") console.error(`stopped: ${outcome.reason}: ${outcome.message}`);
for (const error of failed) console.error(`a researcher failed: ${error}`);
if (outcome.reason === "completed" && failed.length === 0) console.log(outcome.answer);
else process.exitCode = 1;
await store.close();
