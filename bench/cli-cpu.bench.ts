// CPU per spawned fisk-ai command, this build beside another one (CLI_CPU_BEFORE=<that build's
// dist/cli/main.js>), in the same interleaved rounds: the figures of issue 33's bundled CLI.
// --help, `session ls` and `session show --json` on a state dir of a few sessions, a run on the
// script provider and a run on Anthropic, answered by the strict fake (test/helpers), each a
// fresh process timed by /usr/bin/time (user + system: on a shared machine the wall time
// follows the load, the CPU time much less). CLI_CPU_ROUNDS (10) processes per command.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeAnthropic } from "../test/helpers/fake-anthropic-server.js";
import { formatMs, formatRatio, machineLine, printTable } from "./report.js";
import { median } from "./stats.js";

const ROUNDS = Number(process.env.CLI_CPU_ROUNDS ?? 10);
const CLI = new URL("../../dist/cli/main.js", import.meta.url).pathname;
const BEFORE = process.env.CLI_CPU_BEFORE;
const API_KEY = "sk-ant-bench";

/** The CPU milliseconds (user + system) of `node main ...args` in `dir`. */
function cpuMs(main: string, args: readonly string[], dir: string, env: NodeJS.ProcessEnv): Promise<number> {
  const timing = join(dir, "time.txt");
  return new Promise((resolve, reject) => {
    const child = spawn("/usr/bin/time", ["-f", "%U %S", "-o", timing, process.execPath, main, ...args], {
      cwd: dir,
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`node ${main} ${args.join(" ")} exited ${code}: ${stderr}`));
      const [user, system] = readFileSync(timing, "utf8").trim().split(/\s+/).map(Number);
      resolve(((user ?? 0) + (system ?? 0)) * 1000);
    });
  });
}

function writeConfigs(dir: string): void {
  writeFileSync(join(dir, "script.yaml"), "provider: script\nmodel: script-demo\nscript: ./script.replies.yaml\nsession: { state_dir: ./runs }\n");
  writeFileSync(join(dir, "script.replies.yaml"), "turns:\n  - text: Hello.\n");
  writeFileSync(join(dir, "anthropic.yaml"), "provider: anthropic\nmodel: claude-sonnet-4-5\nsession: { state_dir: ./runs }\n");
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "fisk-cli-cpu-"));
  const server = await startFakeAnthropic(
    () => ({ content: [{ type: "text", text: "Hello." }], stop_reason: "end_turn", usage: { input_tokens: 10, output_tokens: 2 } }),
    {
      apiKey: API_KEY,
    },
  );
  try {
    writeConfigs(dir);
    const env = { PATH: process.env.PATH, HOME: dir, NO_COLOR: "1", ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: server.url };
    const scriptRun = ["run", "--config", "script.yaml", "--checkpoint", "Say hello"];
    // The sessions `session ls` lists; `session show` reads one of them.
    for (let i = 0; i < 3; i++) await cpuMs(CLI, scriptRun, dir, env);
    const shown = (readdirSync(join(dir, "runs")).find((name) => /^\w+\.json$/.test(name)) as string).replace(/\.json$/, "");
    const commands: Record<string, string[]> = {
      "--help": ["--help"],
      "session ls": ["session", "ls", "--config", "script.yaml"],
      "session show --json": ["session", "show", "--json", "--config", "script.yaml", shown],
      "run (script provider)": scriptRun,
      "run (Anthropic, fake server)": ["run", "--config", "anthropic.yaml", "--checkpoint", "Say hello"],
    };
    const builds: Record<string, string> = BEFORE === undefined ? { "this build": CLI } : { before: BEFORE, "this build": CLI };
    const samples: Record<string, number[]> = {};
    for (let round = 0; round < ROUNDS; round++) {
      for (const [command, args] of Object.entries(commands)) {
        for (const [build, main] of Object.entries(builds)) (samples[`${command}|${build}`] ??= []).push(await cpuMs(main, args, dir, env));
      }
    }
    const rows = Object.keys(commands).map((command) => {
      const cpu = Object.keys(builds).map((build) => median(samples[`${command}|${build}`] ?? []));
      return [command, ...cpu.map(formatMs), ...(BEFORE === undefined ? [] : [formatRatio((cpu[1] as number) / (cpu[0] as number))])];
    });
    const header = ["", ...Object.keys(builds).map((build) => `${build} cpu ms`), ...(BEFORE === undefined ? [] : ["this / before"])];
    const notes = [
      machineLine(dir),
      `median CPU (user + system) of ${ROUNDS} processes per command; ${server.requests.filter((request) => request.accepted).length} calls answered by the fake`,
    ];
    printTable("CPU per spawned command", header, rows, notes);
    console.log(`\nreproduce: npm run bench:cli-cpu${BEFORE === undefined ? "" : " (CLI_CPU_BEFORE=<another build's dist/cli/main.js>)"}`);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
