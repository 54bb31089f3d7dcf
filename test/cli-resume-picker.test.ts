// covers: src/cli/run/session-picker.ts
// process: shared
// The `run --resume` picker as a person sees it in a real pseudo-terminal (tmux): a header
// and one row a session, newest first, whose id, status, age and title (else prompt) columns
// line up for ids, statuses and ages of different widths, a long title cut at the
// terminal's edge; the number typed resumes that session.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { CLI, runCli } from "./helpers/cli-harness.js";
import { programPath, skipWithout } from "./helpers/programs.js";
import { TmuxTerminal } from "./helpers/tmux-terminal.js";

const SOCKET = `fisk-picker-${process.pid}`;
const WIDTH = 72;
const LONG_TITLE = `Plan the garden ${"and the greenhouse ".repeat(8)}end`;
const DAY = 86_400_000;

const dir = mkdtempSync(join(tmpdir(), "fisk-picker-"));
after(() => {
  rmSync(dir, { recursive: true, force: true });
  if (programPath("tmux") !== undefined) spawnSync(programPath("tmux") as string, ["-L", SOCKET, "kill-server"]);
});
const env = { PATH: process.env.PATH ?? "", HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1", TZ: "UTC" };
writeFileSync(join(dir, "agent.yaml"), "provider: script\nmodel: script-picker\nscript: answers.yaml\n");
writeFileSync(join(dir, "answers.yaml"), "turns:\n  - text: Hello.\nrepeat_from: 1\n");

/** A chat that ends at once: a suspended session, with `title` when given. */
async function suspended(name: string, prompt: string, title?: string): Promise<void> {
  const titled = title === undefined ? [] : ["--title", title];
  const made = await runCli(["run", "--chat", "--checkpoint", "--name", name, ...titled, prompt], { cwd: dir, env });
  assert.equal(made.code, 0, made.stderr);
}

/** Dates a session's journal `ms` ago: what its age in the picker reads. */
function aged(name: string, ms: number): void {
  const time = new Date(Date.now() - ms);
  utimesSync(join(dir, "state", "fisk-ai", "runs", `${name}.json`), time, time);
}

describe("run --resume without an id, on a terminal", () => {
  it("lines up id, status, age and title (else prompt) in columns, cuts a long title at the terminal's edge, and resumes the number typed", {
    skip: skipWithout("tmux"),
  }, async () => {
    await suspended("a", "the prompt of a titled session", "Short");
    await suspended("a-much-longer-session-id", "the prompt shown where no title is");
    await suspended("garden", "plan it", LONG_TITLE);
    const killed = await runCli(["run", "--checkpoint", "--name", "killed-run", "cut short"], {
      cwd: dir,
      env: { ...env, FISK_AI_TEST_CRASH_AT: "after-assistant:1" },
    });
    assert.equal(killed.signal, "SIGKILL", killed.stderr);
    aged("a", 3 * DAY);
    aged("a-much-longer-session-id", 5 * 3_600_000);
    aged("garden", 20 * 60_000);

    const terminal = new TmuxTerminal(SOCKET, "picker", { ...env, PS1: "$ " }, { width: WIDTH, height: 20 });
    try {
      terminal.line(`cd ${dir} && "${process.execPath}" "${CLI}" run --resume; echo "exit $?"`);
      const screen = await terminal.waitFor((shown) => shown.includes("Resume which session? [1-4]"), "the picker's question");
      const lines = screen.split("\n");
      const header = lines.findIndex((line) => line.startsWith("#  ID"));
      assert.ok(header >= 0, screen);
      const rows = lines.slice(header + 1, header + 5);
      const cells = [
        ["1", "killed-run", "open", /^\d+s$/, "cut short"],
        ["2", "garden", "suspended", "20m", LONG_TITLE],
        ["3", "a-much-longer-session-id", "suspended", "5h", "the prompt shown where no title is"],
        ["4", "a", "suspended", "3d", "Short"],
      ] as const;
      const starts = ["#", "ID", "STATUS", "AGE", "TITLE/PROMPT"].map((title) => (lines[header] as string).indexOf(title));
      cells.forEach((row, index) => {
        const line = rows[index] as string;
        row.forEach((cell, column) => {
          const start = starts[column] as number;
          const next = starts[column + 1] ?? line.length;
          const shown = line.slice(start, next).trimEnd();
          if (typeof cell !== "string") assert.match(shown, cell, screen);
          else if (column < 4) assert.equal(shown, cell, `row ${index + 1}, column ${column + 1}:\n${screen}`);
          else assert.ok(cell.startsWith(shown.replace(/…$/, "")) && shown.length > 0, `row ${index + 1}'s title:\n${screen}`);
          if (column > 0) assert.equal(line[start - 1], " ", `row ${index + 1}, column ${column + 1} starts under its header:\n${screen}`);
        });
      });
      assert.equal(rows[1]?.length, WIDTH, `the long title fills the line:\n${screen}`);
      assert.ok(rows[1]?.endsWith("…"), `the long title is cut with an ellipsis:\n${screen}`);
      assert.ok(!rows.join("\n").includes("plan it"), "a titled session shows its title, not its prompt");

      terminal.line("2");
      // The session was a chat: it goes on at the chat's prompt.
      await terminal.waitFor((shown) => /^resuming garden$/m.test(shown) && /^> ?$/m.test(shown), "the chat's prompt");
      terminal.line("/exit");
      const done = await terminal.waitFor((shown) => /^exit \d+$/m.test(shown), "the resume to end");
      assert.match(done, /^exit 0$/m);
    } finally {
      terminal.close();
    }
  });
});
