// covers: src/memory/file-note-store.ts
// start: first
// Every command whose reader goes away (`fisk-ai session ls | head -1`) ends quietly:
// no EPIPE stack trace, exit 0. The read end of stdout is closed before the CLI writes,
// for each command of the CLI (checked against its command tree) and each help.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { FileNoteStore, memoryDir } from "../src/memory/file-note-store.js";
import { CLI } from "./helpers/cli-harness.js";
import { COMMANDS, SESSION_SUBCOMMANDS } from "./helpers/cli-commands.js";
import { startOtlpReceiver, type OtlpReceiver } from "./helpers/otlp-receiver.js";
import { startNatsServer, type NatsServer } from "./helpers/nats-server.js";
import { startPostgres, type PostgresServer } from "./helpers/postgres-server.js";
import { skipWithout } from "./helpers/programs.js";
import { sharedKeyring } from "./helpers/signing-keys.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);

const ROOT = mkdtempSync(join(tmpdir(), "fisk-ai-cli-pipes-"));
after(() => rmSync(ROOT, { recursive: true, force: true }));
// A keyring made ahead, so a decision's only output is its own (the first would make one, and say so).
const ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: ROOT,
  XDG_STATE_HOME: join(ROOT, "xdg"),
  NO_COLOR: "1",
  FISK_AI_SIGNING_KEYS: sharedKeyring(ROOT),
};
const STATE = ["--state-dir", join(ROOT, "state")];

async function withClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: ENV, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout.destroy();
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, "close")) as [number | null];
  return { code, stderr };
}

describe("a closed stdout", () => {
  const natsSkip = skipWithout("nats-server");
  const postgresSkip = skipWithout("postgres");
  let nats: NatsServer | undefined;
  let postgres: PostgresServer | undefined;
  let collector: OtlpReceiver | undefined;
  before(async () => {
    collector = await startOtlpReceiver();
    writeFileSync(join(ROOT, "agent.yaml"), "provider: script\nscript: answer.yaml\n");
    writeFileSync(join(ROOT, "answer.yaml"), `turns:\n  - text: "${"an answer long enough to fill a line ".repeat(4)}"\n`);
    for (const name of ["one", "two", "gone"]) {
      const made = await cli(["run", "--checkpoint", "--name", name, ...STATE, "hello"], { cwd: ROOT, env: ENV });
      assert.equal(made.code, 0, made.stderr);
    }
    // Sessions parked at a confirm call and a question, for the decision commands.
    writeFileSync(
      join(ROOT, "park.yaml"),
      "provider: script\nscript: park-script.yaml\nask_user: true\ntools:\n  - { name: send, description: Send, command: [echo, sent], confirm: true }\n",
    );
    writeFileSync(
      join(ROOT, "park-script.yaml"),
      "turns:\n  - tool_calls: [{ name: send, input: {} }, { name: ask_user, input: { question: Why? } }]\n  - text: done\n",
    );
    for (const name of ["parked-a", "parked-d", "parked-q"]) {
      const parked = await cli(["run", "--config", "park.yaml", "--checkpoint", "--name", name, ...STATE, "hello"], { cwd: ROOT, env: ENV });
      assert.equal(parked.code, 10, parked.stderr);
    }
    // A session with a long prompt and a short answer, which the script's one turn also summarizes, shorter.
    writeFileSync(join(ROOT, "compact.yaml"), "provider: script\nscript: compact-script.yaml\ncompaction: { auto: false, keep_recent: 1 }\n");
    writeFileSync(join(ROOT, "compact-script.yaml"), "turns:\n  - text: a short answer\n");
    const long = await cli(["run", "--config", "compact.yaml", "--checkpoint", "--name", "long", ...STATE, "hello ".repeat(200)], { cwd: ROOT, env: ENV });
    assert.equal(long.code, 0, long.stderr);
    const exported = await cli(["session", "export", "one", "-o", join(ROOT, "one.jsonl"), ...STATE], { cwd: ROOT, env: ENV });
    assert.equal(exported.code, 0, exported.stderr);
    for (const key of ["list", "gone"])
      await new FileNoteStore(memoryDir("default", ENV)).write(key, { description: "a note", content: "milk\n".repeat(20) }, false);
    if (natsSkip === false) nats = await startNatsServer();
    if (postgresSkip === false) postgres = await startPostgres();
  });
  after(async () => {
    await collector?.close();
    await nats?.stop();
    await postgres?.stop();
  });

  // Each command with the arguments that make it write to stdout.
  const commands: string[][] = [
    ["--help"],
    ["--version"],
    ["help", "session"],
    ...COMMANDS.map((command) => [...command, "--help"]),
    ["run", ...STATE, "hello"],
    ["run", ...STATE, "--output-format", "stream-json", "hello"],
    ["run", ...STATE, "--chat", "hello"],
    ["session", "ls", ...STATE],
    ["session", "ls", "--json", ...STATE],
    ["session", "show", "one", ...STATE],
    ["session", "show", "one", "--transcript", ...STATE],
    ["session", "export", "one", ...STATE],
    ["session", "verify", "one", "two", ...STATE],
    ["session", "fork", "one", "--name", "three", ...STATE],
    ["session", "import", join(ROOT, "one.jsonl"), "--name", "four", ...STATE],
    ["session", "rm", "gone", ...STATE],
    ["session", "compact", "long", ...STATE],
    ["session", "init-stream", "--store", "nats://NATS/FISK_PIPES"],
    ["store", "init", "postgres://PG/postgres?schema=pipes"],
    ["session", "pending", ...STATE],
    ["session", "pending", "--json", ...STATE],
    ["session", "approve", "parked-a", ...STATE],
    ["session", "deny", "parked-d", "--reason", "no", ...STATE],
    ["session", "answer", "parked-q", "because", ...STATE],
    ["session", "stats", ...STATE],
    ["session", "du", ...STATE],
    ["session", "prune", "--status", "completed", "--dry-run", ...STATE],
    ["session", "rename", "one", "The first one", ...STATE],
    ["session", "search", "hello", ...STATE],
    ["session", "trace", "one", "--endpoint", "http://OTLP", ...STATE],
    ["session", "mv", "two", "--to", join(ROOT, "moved"), ...STATE],
    ["replay", "--config", "agent.yaml", "one", ...STATE],
    ["submit", "--name", "queued-one", ...STATE, "hello"],
    ["submit", "--name", "queued-two", ...STATE, "hello"],
    ["queue", "ls", ...STATE],
    ["queue", "ls", "--json", ...STATE],
    ["queue", "rm", "queued-two", ...STATE],
    ["queue", "suspend", "queued-one", ...STATE],
    ["key", "create", "--name", "ci", "--tenant", "acme", "--roles", "read,run"],
    ["signing-key", "rotate"],
    ["signing-key", "ls"],
    ["memory", "ls"],
    ["memory", "show", "list"],
    ["memory", "rm", "gone"],
    ["init", join(ROOT, "initialized")],
    ["completion", "bash"],
    ["completion", "zsh"],
  ];

  // Not run here: a worker and a server run until told to stop (their SIGTERM exits are tested
  // in cli-workers.test.ts and server-http.test.ts), and mcp login waits for a person at a
  // browser (cli-mcp-sign-in.test.ts).
  const RUNS_UNTIL_STOPPED = ["worker", "serve", "mcp"];
  // signing-key rm names a key that no longer signs, known only once a rotation made one: signing-keys.test.ts walks it.
  const NAMES_WHAT_A_RUN_MADE = ["signing-key rm"];

  it("every command of the CLI is among them", () => {
    const leaves = COMMANDS.filter(
      (command) =>
        !RUNS_UNTIL_STOPPED.includes(command[0] as string) &&
        !NAMES_WHAT_A_RUN_MADE.includes(command.join(" ")) &&
        !COMMANDS.some((other) => other.length > command.length && command.every((word, i) => other[i] === word)),
    );
    const run = commands.filter((args) => !args.includes("--help"));
    for (const leaf of leaves)
      assert.ok(
        run.some((args) => leaf.every((word, i) => args[i] === word)),
        `fisk-ai ${leaf.join(" ")} is run`,
      );
  });

  for (const args of commands) {
    const skip = (args.some((arg) => arg.startsWith("nats://")) && natsSkip) || (args.some((arg) => arg.startsWith("postgres://")) && postgresSkip);
    it(`fisk-ai ${args.filter((arg) => !arg.startsWith("/")).join(" ")} exits 0 without a word`, { skip }, async () => {
      const real = args.map((arg) =>
        arg
          .replace("nats://NATS/", `${nats?.url ?? ""}/`)
          .replace("postgres://PG/postgres", postgres?.url ?? "")
          .replace("http://OTLP", collector?.url ?? ""),
      );
      assert.deepEqual(await withClosedStdout(real), { code: 0, stderr: "" });
    });
  }
});

describe("a reader that goes away mid-run", () => {
  it("fisk-ai run 2>&1 | true: narration and answer into a closed pipe exit 0", async () => {
    // The narration goes out between model calls and tools, so some write lands after the reader is gone.
    const line = `"${process.execPath}" "${CLI}" run ${STATE.join(" ")} --checkpoint "hello" 2>&1 | true; exit \${PIPESTATUS[0]}`;
    const child = spawn("bash", ["-c", line], { cwd: ROOT, env: ENV, stdio: "ignore" });
    const [code] = (await once(child, "close")) as [number | null];
    assert.equal(code, 0);
  });
});

describe("session <command> --help", () => {
  for (const command of SESSION_SUBCOMMANDS) {
    it(`session ${command} --help prints that command's usage`, async () => {
      const result = await cli(["session", command, "--help"], { cwd: ROOT, env: ENV });
      assert.equal(result.code, 0);
      assert.match(result.stdout, new RegExp(`^Usage: fisk-ai session ${command} `));
      assert.doesNotMatch(result.stdout, /Commands:/);
    });
  }
});
