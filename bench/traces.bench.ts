// Traces overhead (issue 36): a checkpointed run of 100 turns (99 tool calls and an
// answer) on the script provider, with tracing off and on, side by side, interleaved
// round by round. On: the live tracer (run-tracing.ts) exporting over OTLP/HTTP to a
// loopback collector in a process of its own (it takes the bytes and answers, as a real one
// would, without costing this process), set up as `fisk-ai run` sets it up (traced-run.ts).
// Timed to the answer, which the CLI prints before it sends what is left of the trace, and
// to the last span sent.
// Goal: on within 1.05x of off.     npm run bench:traces    (TRACES_ROUNDS=<n>)
// Each run's CPU time (user + system of this process, to the answer) is printed beside its wall
// time: on a shared machine the wall time follows the load, the CPU time much less.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startRun, type RunOptions } from "../src/agent/agent-loop.js";
import { agentSpec } from "../src/agent/agent-spec.js";
import { ScriptProvider } from "../src/llm/script-provider.js";
import { FileStore } from "../src/backends/file/file-store.js";
import { tracedRun } from "../src/telemetry/traced-run.js";
import { defineTool } from "../src/tools/tool.js";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { formatMs, formatRatio, goalRatio, machineLine, printTable } from "./report.js";
import { interleave, median } from "./stats.js";

const ROUNDS = Number(process.env.TRACES_ROUNDS ?? 10);
const TURNS = 100;
const GOAL = 1.05;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "fisk-traces-"));
  const receiver = await startCollector();
  try {
    const script = join(dir, "s.yaml");
    writeFileSync(script, `turns:\n${"  - tool_calls: [{ name: note, input: { text: hi } }]\n".repeat(TURNS - 1)}  - text: done\n`);
    const note = defineTool({
      name: "note",
      description: "note it",
      input: { type: "object", properties: { text: { type: "string" } } },
      run: async () => "noted",
    });
    const spec = agentSpec({
      provider: new ScriptProvider(script),
      model: "script-bench",
      system: "bench",
      tools: [note],
      budget: { maxOutputTokens: 1024, maxTokens: 100_000_000, maxIterations: TURNS + 1 },
      retry: { attempts: 1, baseDelayMs: 1, timeoutMs: 5000 },
    });
    const store = new FileStore({ dir: join(dir, "runs") });
    let n = 0;
    // The time to the answer (what the CLI prints before it sends what is left of the
    // trace) and to the last span sent (when its process may exit).
    const flushed: { wall: number; cpu: number }[] = [];
    const once = (traced: boolean) => async (): Promise<{ wall: number; cpu: number }> => {
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      const options: RunOptions = { spec, store };
      const runId = `r${++n}`;
      // What `fisk-ai run` does when the environment turns tracing on.
      const tracing = traced ? await tracedRun({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }, { provider: "script", model: spec.model, runId }) : undefined;
      if (tracing !== undefined) {
        options.events = tracing.events;
        options.callEnvironment = tracing.callEnvironment;
      }
      const outcome = await startRun(options, { prompt: "go", runId });
      const answered = performance.now() - started;
      const cpuUsed = process.cpuUsage(cpuBefore);
      if (outcome.reason !== "completed") throw new Error(`the run ended ${outcome.reason}: ${outcome.message}`);
      if (tracing !== undefined) {
        const failure = await tracing.shutdown();
        if (failure !== undefined) throw new Error(`the collector did not take the spans: ${failure}`);
        const cpuSent = process.cpuUsage(cpuBefore);
        flushed.push({ wall: performance.now() - started, cpu: (cpuSent.user + cpuSent.system) / 1000 });
      }
      return { wall: answered, cpu: (cpuUsed.user + cpuUsed.system) / 1000 };
    };
    const results = await interleave({ off: once(false), on: once(true) }, ROUNDS, 2);
    const off = median(results.off.map(({ wall }) => wall));
    const on = median(results.on.map(({ wall }) => wall));
    const offCpu = median(results.off.map(({ cpu }) => cpu));
    const onCpu = median(results.on.map(({ cpu }) => cpu));
    const sent = median(flushed.slice(-ROUNDS).map(({ wall }) => wall));
    const sentCpu = median(flushed.slice(-ROUNDS).map(({ cpu }) => cpu));
    printTable(
      `Traces: median wall and CPU ms of ${ROUNDS} checkpointed runs of ${TURNS} turns each (script provider, file store), interleaved`,
      ["", "wall ms", "vs off", "cpu ms", "vs off", `goal ${GOAL}x (cpu)`],
      [
        ["tracing off: to the answer", formatMs(off), formatRatio(1), formatMs(offCpu), formatRatio(1), ""],
        [
          "tracing on (OTLP/HTTP to loopback): to the answer",
          formatMs(on),
          formatRatio(on / off),
          formatMs(onCpu),
          formatRatio(onCpu / offCpu),
          goalRatio(onCpu / offCpu, onCpu <= GOAL * offCpu),
        ],
        ["tracing on: to the last span sent", formatMs(sent), formatRatio(sent / off), formatMs(sentCpu), formatRatio(sentCpu / offCpu), ""],
      ],
      [machineLine(dir), `exports received: ${await receiver.exports()}`, "command: npm run bench:traces"],
    );
  } finally {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A collector in a child process: counts the exports it is sent and answers each 200. */
async function startCollector(): Promise<{ url: string; exports(): Promise<string>; close(): Promise<void> }> {
  const program = `
    let n = 0;
    const server = require("node:http").createServer((req, res) => {
      if (req.url === "/count") return res.end(String(n));
      req.resume();
      req.on("end", () => { n++; res.writeHead(200, { "content-type": "application/json" }).end("{}"); });
    });
    server.listen(0, "127.0.0.1", () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ["-e", program], { stdio: ["ignore", "pipe", "inherit"] });
  const [chunk] = (await once(child.stdout, "data")) as [Buffer];
  const url = `http://127.0.0.1:${chunk.toString().trim()}`;
  return {
    url,
    exports: async () => (await fetch(`${url}/count`)).text(),
    close: async () => {
      child.kill();
      await once(child, "close");
    },
  };
}

await main();
