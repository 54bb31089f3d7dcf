// Suspend a run with Ctrl-C, resume it in another process: the session is journaled to a
// directory, and the tool whose result is journaled does not run again.
// Run (after npm run build:test), offline on the script provider; with ANTHROPIC_API_KEY set, Claude plays the model:
//   node .test-build/examples/library/suspend-resume.js start sessions "Count to 10"   (Ctrl-C while it counts: it suspends)
//   node .test-build/examples/library/suspend-resume.js resume sessions SESSION_ID
import { relative } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { AnthropicProvider, defineTool, FileStore, runAgent, ScriptProvider } from "fisk-ai";
import * as z from "zod";

const [command, dir, argument] = process.argv.slice(2);
if ((command !== "start" && command !== "resume") || dir === undefined || argument === undefined) {
  console.error("usage: suspend-resume.js start DIR PROMPT | resume DIR SESSION_ID");
  process.exit(2);
}

// The first Ctrl-C asks the run to suspend at its next step; the run ends "suspended".
const suspend = new AbortController();
process.once("SIGINT", () => {
  console.error("suspending at the next step");
  suspend.abort();
});

// A stand-in for slow work. Asked to suspend, it stops where it is: its result is journaled,
// and the resumed run goes on from it instead of counting again.
const count = defineTool({
  name: "count",
  description: "Counts from 1 to a number, one a second",
  input: z.object({ to: z.int().min(1).max(60) }),
  run: async ({ to }, { signal }) => {
    for (let n = 1; ; n++) {
      console.error(`counting ${n} of ${to}`);
      if (n === to) return `counted to ${to}`;
      await sleep(1000, undefined, { signal: AbortSignal.any([signal, suspend.signal]) }).catch(() => signal.throwIfAborted());
      if (suspend.signal.aborted) return `stopped at ${n} of ${to}: the run was asked to suspend`;
    }
  },
});

const key = process.env.ANTHROPIC_API_KEY;
const store = new FileStore({ dir });
try {
  const outcome = await runAgent({
    ...(key
      ? { provider: new AnthropicProvider({ apiKey: key, baseURL: process.env.ANTHROPIC_BASE_URL }), model: "claude-sonnet-4-5" }
      : {
          provider: new ScriptProvider({
            turns: [
              { tool_calls: [{ name: "count", input: { to: 10 } }] },
              { choose: [{ when: "stopped at", text: "The count was stopped before 10, and that is where it stays." }, { text: "Counted to 10." }] },
            ],
          }),
          model: "script-demo",
        }),
    tools: [count],
    store,
    suspendSignal: suspend.signal,
    ...(command === "start" ? { prompt: argument } : { resume: argument }),
  });
  console.log(JSON.stringify({ runId: outcome.runId, reason: outcome.reason, answer: outcome.answer, toolCalls: outcome.counters.toolCalls }));
  if (outcome.reason === "suspended") console.error(`resume it with: node ${relative(process.cwd(), process.argv[1] ?? "")} resume ${dir} ${outcome.runId}`);
} finally {
  await store.close();
}
