// covers: src/cli/viewer/string-width.ts, src/cli/viewer/view-session.ts, src/cli/viewer/viewer-app.ts
// covers: src/cli/viewer/viewer-frame.ts, src/runstate/records/journal-codec.ts, src/runstate/records/records.ts
// The full-screen viewer as a person meets it: `session show ID --transcript` run in a
// shell inside tmux (a real pseudo-terminal), driven with keystrokes, its screen read back
// with capture-pane. Each way out must give the terminal back as it was: the normal screen,
// the cursor shown, the terminal modes stty reported before.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { JournalRecord } from "../src/index.js";
import { encodeRecord, PROTOCOLS } from "../src/journal.js";
import { CLI } from "./helpers/cli-harness.js";
import { programPath, skipWithout } from "./helpers/programs.js";
import { TmuxTerminal } from "./helpers/tmux-terminal.js";
import { assistantEntry, journalOf, metaRecord, terminalEntry, toolResultEntry } from "./helpers/record-builders.js";
import { hostileRecords, plantSession, tourRecords } from "./helpers/shown-sessions.js";
import { timedSession, TIMES } from "./helpers/durations.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-viewer-"));
// Removed at the file's end, not in the suite's after: a suite skipped for want of tmux runs no hook.
after(() => rmSync(ROOT, { recursive: true, force: true }));
const STORE = join(ROOT, "runs");
const SOCKET = `fisk-viewer-${process.pid}`;
const WIDTH = 100;
const HEIGHT = 30;

/** A shell in a terminal of WIDTH x HEIGHT (test/helpers/tmux-terminal.ts). */
class Terminal extends TmuxTerminal {
  constructor(name: string) {
    super(SOCKET, name, { PS1: "$ ", NO_COLOR: "1", HOME: ROOT, PATH: process.env.PATH ?? "" }, { width: WIDTH, height: HEIGHT });
  }
}

/**
 * Starts the viewer of `runId` in a fresh terminal, after writing a marker line and saving
 * the terminal's modes; once it ends, the shell prints its exit code and saves the modes again.
 */
async function startViewer(name: string, runId: string, extra = ""): Promise<Terminal> {
  const terminal = new Terminal(name);
  const stty = (when: string) => `stty -g > ${join(ROOT, `${name}.${when}`)}`;
  terminal.line(
    `clear; echo before-the-viewer; ${stty("before")}; node ${CLI} session show ${runId} --transcript --state-dir ${STORE} ${extra}; echo "exit=$?"; ${stty("after")}`,
  );
  await terminal.waitFor((screen) => / · q quit/.test(screen), "the viewer's status bar");
  assert.equal(terminal.flag("alternate_on"), "1", "the viewer draws on the alternate screen");
  return terminal;
}

/** The terminal after the viewer: its exit code printed on the normal screen, the cursor shown, the modes as before. */
async function assertRestored(terminal: Terminal, code: number): Promise<string> {
  const screen = await terminal.waitFor((text) => /exit=\d+/.test(text), "the viewer's exit");
  assert.match(screen, new RegExp(`^exit=${code}$`, "m"));
  assert.match(screen, /^before-the-viewer$/m, "the normal screen, as it was");
  assert.doesNotMatch(screen, / · q quit/, "nothing of the viewer left on it");
  assert.equal(terminal.flag("alternate_on"), "0");
  assert.equal(terminal.flag("cursor_flag"), "1", "the cursor shown again");
  await terminal.waitFor(() => {
    try {
      return readFileSync(join(ROOT, `${terminal.name}.after`), "utf8") !== "";
    } catch {
      return false;
    }
  }, "stty's report after the viewer");
  assert.equal(
    readFileSync(join(ROOT, `${terminal.name}.after`), "utf8"),
    readFileSync(join(ROOT, `${terminal.name}.before`), "utf8"),
    "the terminal modes as before",
  );
  return screen;
}

/** A long session: 400 turns, each a call and its result, and a word to search for in turn 250. */
function longRecords(runId: string): JournalRecord[] {
  const entries = [];
  for (let turn = 0; turn < 400; turn++) {
    entries.push(assistantEntry(turn, `Turn ${turn} looks at the notes.`, [`toolu_${turn}`]));
    entries.push(toolResultEntry(`toolu_${turn}`, turn === 250 ? "line one\nthe needle is here\nline three" : `result ${turn}\nsecond line`));
  }
  return journalOf(runId, ...entries, assistantEntry(400, "All 400 turns done."), terminalEntry("completed"));
}

describe("fisk-ai session show --transcript on a terminal", { skip: skipWithout("tmux") }, () => {
  const terminals: Terminal[] = [];
  const start = async (name: string, runId: string, extra?: string) => {
    const terminal = await startViewer(name, runId, extra);
    terminals.push(terminal);
    return terminal;
  };
  before(() => {
    plantSession(STORE, tourRecords("tour"));
    plantSession(STORE, longRecords("long"));
    plantSession(STORE, hostileRecords("hostile"));
    plantSession(STORE, timedSession("timed", TIMES));
  });
  after(() => {
    for (const terminal of terminals) terminal.close();
    spawnSync(programPath("tmux") as string, ["-L", SOCKET, "kill-server"]);
  });

  it("shows how long each timed model call and tool took", async () => {
    const terminal = await start("timed", "timed");
    const screen = terminal.screen();
    assert.match(screen, /^\(model call, 2\.4 s\)$/m);
    assert.match(screen, /^▸ ← note \(312 ms\): noted$/m);
    terminal.type("q");
    await assertRestored(terminal, 0);
  });

  it("shows the conversation full-screen with thinking and results folded, opens a fold with Enter, and q gives the terminal back", async () => {
    const terminal = await start("tour", "tour");
    const screen = terminal.screen();
    assert.match(screen, /^› The checkout tests fail since the shipping change: find out why and fix it\.$/m);
    assert.match(screen, /^▸ \(thinking\) The checkout tests fail since the shipping change\. \(\+1 line\)$/m);
    assert.match(screen, /^I'll run the checkout tests to see what fails\.$/m);
    assert.match(screen, /^→ run_command \{"command":"go test \.\/internal\/\.\.\."\}$/m);
    assert.match(screen, /^▸ ← run_command \(error\): ok {6}github\.com\/example\/shop\/internal\/cart {4}0\.412s \(\+4 lines\)$/m);
    assert.match(screen, /^▸ ── compacted: records 1 to 5 summarized \(17335 → 2950 tokens\) ──$/m);
    assert.match(screen, /^tour · completed · record 1 of 16 \(6%\) · q quit/m);
    assert.doesNotMatch(screen, /Run them first/, "the thinking is folded");
    terminal.type("Enter");
    await terminal.waitFor((text) => /^▾ \(thinking\)/m.test(text), "the thinking opened");
    assert.match(terminal.screen(), /^ {2}Run them first, then read the totals code\.$/m);
    terminal.type("q");
    await assertRestored(terminal, 0);
  });

  it("moves with the keys of less, reading a long journal as it goes, and searches with /, n and N", async () => {
    const terminal = await start("long", "long");
    const status = () => (/^long · .*$/m.exec(terminal.screen()) ?? [""])[0];
    assert.match(status(), /record 1 of 803 \(0%\)/);
    terminal.type("j");
    await terminal.waitFor((screen) => !/^› What is in the notes file\?$/m.test(screen), "one line down");
    terminal.type("Space");
    await terminal.waitFor(() => /record (9|1\d) of 803/.test(status()), "a page down");
    terminal.type("b");
    await terminal.waitFor(() => /record 2 of 803/.test(status()), "a page back, where the line down was");
    terminal.type("G");
    await terminal.waitFor((screen) => /^All 400 turns done\.$/m.test(screen), "the end");
    assert.match(status(), /record \d+ of 803 \(end\)/);
    terminal.type("g");
    await terminal.waitFor((screen) => /^› What is in the notes file\?$/m.test(screen), "the top again");
    terminal.type("/");
    terminal.type("-l", "needle");
    await terminal.waitFor(() => /^\/needle$/m.test(terminal.screen()), "the search typed in the status bar");
    terminal.type("Enter");
    await terminal.waitFor((screen) => /^▾ ← note: line one/m.test(screen), "the match at the top, its fold opened");
    assert.match(terminal.screen(), /^ {2}the needle is here$/m);
    assert.match(status(), /record 503 of 803 .*\/needle/);
    await terminal.waitFor(() => /\/needle 1 of 1 · /.test(status()), "the matches counted");
    terminal.type("n");
    await terminal.waitFor(() => /not found/.test(status()), "no second match");
    terminal.type("g");
    await terminal.waitFor(() => /record 1 of 803/.test(status()), "the top");
    terminal.type("n");
    await terminal.waitFor(() => /record 503 of 803/.test(status()), "n finds it again from the top");
    terminal.type("G");
    await terminal.waitFor(() => /\(end\)/.test(status()), "the end");
    terminal.type("N");
    await terminal.waitFor(() => /record 503 of 803/.test(status()), "N finds it backward from the end");
    terminal.type("C-c");
    await assertRestored(terminal, 130);
  });

  it("marks the search's term in a colour of its own and says which match of how many is on screen", async () => {
    const entries = [];
    for (let turn = 0; turn < 60; turn++) {
      entries.push(assistantEntry(turn, `Turn ${turn}.`, [`toolu_${turn}`]));
      entries.push(toolResultEntry(`toolu_${turn}`, turn % 20 === 5 ? `first line\nthe Needle of turn ${turn}` : `result ${turn}`));
    }
    plantSession(STORE, journalOf("marks", ...entries, terminalEntry("completed")));
    // Colours on: the other terminals here say NO_COLOR.
    const terminal = new TmuxTerminal(SOCKET, "marks", { PS1: "$ ", HOME: ROOT, PATH: process.env.PATH ?? "" }, { width: WIDTH, height: HEIGHT });
    terminals.push(terminal);
    terminal.line(`clear; node ${CLI} session show marks --transcript --state-dir ${STORE}; echo "exit=$?"`);
    const status = () => (/^marks · .*$/m.exec(terminal.screen()) ?? [""])[0];
    await terminal.waitFor(() => / · q quit/.test(status()), "the viewer's status bar");
    terminal.type("/");
    terminal.type("-l", "needle");
    terminal.type("Enter");
    await terminal.waitFor(() => /\/needle 1 of 3 · /.test(status()), "the first of three matches");
    assert.match(terminal.screen(), /^ {2}the Needle of turn 5$/m);
    const line =
      terminal
        .styledScreen()
        .split("\n")
        .find((each) => each.includes("of turn 5")) ?? "";
    const [, before, after] = /the ((?:\u001b\[[\d;]*m)+)Needle((?:\u001b\[[\d;]*m)*) of turn 5/.exec(line) ?? [];
    assert.match(before ?? "", /\[(?:[\d;]*;)?43m/, `the term on a yellow background: ${JSON.stringify(line)}`);
    assert.notEqual(after, "", "and only the term");
    terminal.type("n");
    await terminal.waitFor(() => /\/needle 2 of 3 · /.test(status()), "n: the second");
    assert.match(terminal.screen(), /^ {2}the Needle of turn 25$/m);
    terminal.type("N");
    await terminal.waitFor(() => /\/needle 1 of 3 · /.test(status()), "N: the first again");
    terminal.type("q");
    await terminal.waitFor((screen) => /^exit=0$/m.test(screen), "the viewer's exit");
  });

  it("shows a hostile journal's control characters as text, never sending them to the terminal", async () => {
    const terminal = await start("hostile", "hostile");
    const screen = terminal.screen();
    assert.match(screen, /^Done: the page says \^\[\[2J\^\[\]0;pwned\^G nothing\.$/m);
    terminal.type("q");
    await assertRestored(terminal, 0);
  });

  it("gives the terminal back when it is sent SIGTERM, and ends by that signal", async () => {
    const terminal = await start("sigterm", "tour");
    process.kill(terminal.foreground(), "SIGTERM");
    await assertRestored(terminal, 143);
  });

  it("gives the terminal back when the viewer fails (a journal corrupt further on), saying why in one line", async () => {
    const records = longRecords("broken");
    writeFileSync(join(STORE, "broken.json"), records.slice(0, 600).map(encodeRecord).join(""), { mode: 0o600 });
    appendFileSync(join(STORE, "broken.json"), "{not json\n");
    const terminal = await start("broken", "broken");
    terminal.type("G");
    const screen = await assertRestored(terminal, 8);
    assert.match(screen, /^fisk-ai: session broken: line 601 is not valid JSON/m);
  });

  it("prints as before under --no-tui and NO_TUI=1, with no screen of its own", async () => {
    for (const [name, extra] of [
      ["no-tui", "--no-tui"],
      ["no-tui-env", ""],
    ] as const) {
      const terminal = new Terminal(name);
      terminals.push(terminal);
      terminal.line(
        `clear; ${name === "no-tui-env" ? "NO_TUI=1 " : ""}node ${CLI} session show tour --transcript --state-dir ${STORE} ${extra}; echo "exit=$?"`,
      );
      const screen = await terminal.waitFor((text) => /exit=0/.test(text), "the plain print");
      assert.match(screen, /^No: payment charges checkout\.Total, so the fix covers it too\.$/m, name);
      assert.equal(terminal.flag("alternate_on"), "0");
    }
  });

  it("follows a running session: new records appear at the bottom as they are journaled, until it ends", async () => {
    const records = journalOf("live", assistantEntry(0, "Starting the long job.", ["toolu_live"]));
    records[0] = metaRecord("live", { prompt: "Watch this run." });
    const path = join(STORE, "live.json");
    writeFileSync(path, records.map(encodeRecord).join(""), { mode: 0o600 });
    const terminal = await start("follow", "live", "--follow");
    assert.match(terminal.screen(), /following/);
    appendFileSync(path, encodeRecord({ seq: 3, ...toolResultEntry("toolu_live", "job output") }));
    await terminal.waitFor((screen) => /^▸ ← note: job output$/m.test(screen), "the new result");
    appendFileSync(path, encodeRecord({ seq: 4, ...assistantEntry(1, "The job is done.") }));
    appendFileSync(path, encodeRecord({ seq: 5, protocol: PROTOCOLS.terminal, terminal: { reason: "completed" } }));
    // The bar ends on the session's final status, no longer on the status it was followed with.
    await terminal.waitFor((screen) => /^The job is done\.$/m.test(screen) && /^live · completed · /m.test(screen), "the last records, and the final status");
    assert.doesNotMatch(terminal.screen(), / · (following|open) · /);
    terminal.type("q");
    await assertRestored(terminal, 0);
  });
});
