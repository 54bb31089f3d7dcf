// covers: src/cli/memory/table.ts, src/cli/memory/memory-command.ts
// process: shared
// Memory end to end through the CLI: a run whose model keeps a note, a resume after the
// note changed, and the operator's `fisk-ai memory ls|show|rm`.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { startCli } from "./helpers/cli-harness.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";

const dir = mkdtempSync(join(tmpdir(), "fisk-ai-cli-memory-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const env = { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" };
/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const fisk = commandsInProcess(["memory", "session", "run"]);
const cli = (args: string[]) => fisk(args, { cwd: dir, env });
const notesDir = join(dir, "state", "fisk-ai", "memory", "shop");

writeFileSync(
  join(dir, "agent.yaml"),
  [
    "provider: script",
    "script: ./s.yaml",
    "memory: { enabled: true, namespace: shop }",
    "tools:",
    // Waits for the test to open its gate, once the run has heard the Ctrl-C.
    "  - { name: pause, description: Wait, command: [sh, -c, 'while [ ! -e gate ]; do sleep 0.05; done'] }",
  ].join("\n"),
);
writeFileSync(
  join(dir, "s.yaml"),
  [
    "turns:",
    '  - tool_calls: [{ name: memory_write, input: { key: list, description: the shopping list, content: "milk\\n" } }]',
    "  - tool_calls: [{ name: pause }]",
    "  - tool_calls: [{ name: memory_read, input: { key: list } }]",
    "  - choose:",
    "      - when: eggs",
    "        text: The list says eggs.",
    "      - text: The list is unchanged.",
  ].join("\n"),
);

describe("fisk-ai memory", () => {
  it("a run keeps a note; changed while suspended, the resume reads the new note and is not refused", async () => {
    const run = startCli(["run", "--checkpoint", "--name", "shop", "what is on the list?"], { cwd: dir, env });
    await run.stderrIncludes("→ pause");
    run.child.kill("SIGINT");
    await run.stderrIncludes("suspending at the next step");
    writeFileSync(join(dir, "gate"), "");
    const suspended = await run.done;
    assert.equal(suspended.code, 3, suspended.stderr);
    assert.equal(readFileSync(join(notesDir, "list.md"), "utf8"), "---\ndescription: the shopping list\n---\n\nmilk\n");

    const listed = await cli(["memory", "ls"]);
    assert.deepEqual([listed.code, listed.stdout], [0, "- list: the shopping list\n"]);
    const shown = await cli(["memory", "show", "list", "--namespace", "shop"]);
    assert.deepEqual([shown.code, shown.stdout], [0, "milk\n"]);

    writeFileSync(join(notesDir, "list.md"), "---\ndescription: the shopping list\n---\n\neggs\n");
    const resumed = await cli(["run", "--resume", "shop"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout, "The list says eggs.\n");

    assert.equal((await cli(["memory", "rm", "list"])).code, 0);
    assert.deepEqual(await cli(["memory", "ls"]), { code: 0, signal: null, stdout: "", stderr: "" });
  });

  it("says in one line what is wrong: a missing note, a bad key or namespace, an unknown command", async () => {
    const cases: [string[], number, RegExp][] = [
      [["memory", "show", "absent"], 6, /^fisk-ai: no note absent in namespace shop; 'fisk-ai memory ls' lists them\n$/],
      [["memory", "rm", "absent", "--namespace", "other"], 6, /^fisk-ai: no note absent in namespace other;/],
      [["memory", "show", "../etc"], 2, /^fisk-ai: note key "\.\.\/etc" may only hold letters/],
      [["memory", "ls", "--namespace", "a/b"], 2, /^fisk-ai: --namespace: namespace "a\/b" may only hold/],
      [["memory", "show"], 2, /^fisk-ai: memory show takes one key/],
      [["memory", "ls", "x"], 2, /^fisk-ai: memory ls takes no arguments\n$/],
      [["memory", "list"], 2, /^fisk-ai: unknown memory command 'list'/],
      [["memory", "ls", "--bogus"], 2, /^fisk-ai: Unknown option '--bogus'.*see 'fisk-ai memory --help'\n$/],
    ];
    for (const [args, code, message] of cases) {
      const result = await cli(args);
      assert.equal(result.code, code, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, message, args.join(" "));
    }
    const help = await cli(["memory", "--help"]);
    assert.match(help.stdout, /fisk-ai memory COMMAND/);
  });
});
