// covers: src/backends/file/file-store.ts
// A child session's work folded inside its parent's call, as a person opens it: in the
// full-screen viewer with Enter (the real CLI in a tmux terminal), and on the HTML page
// with a click (headless Chromium), its own children folded inside it in turn.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { launchChromium } from "./helpers/headless-chromium.js";
import { FileStore } from "../src/index.js";
import { CLI, runCli } from "./helpers/cli-harness.js";
import { programPath, skipWithout } from "./helpers/programs.js";
import { plantTree, surveyTree } from "./helpers/session-trees.js";
import { TmuxTerminal } from "./helpers/tmux-terminal.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-tree-views-"));
const STORE = join(ROOT, "runs");
const SOCKET = `fisk-tree-views-${process.pid}`;
before(() => plantTree(new FileStore({ dir: STORE }), surveyTree()));
after(() => rmSync(ROOT, { recursive: true, force: true }));

describe("the viewer folds a child session's work into the call that started it", { skip: skipWithout("tmux") }, () => {
  after(() => void spawnSync(programPath("tmux") as string, ["-L", SOCKET, "kill-server"]));

  it("shows the child folded after its call, opens it with Enter (its own child's work inside), and q leaves", async () => {
    const terminal = new TmuxTerminal(SOCKET, "tree", { PS1: "$ ", NO_COLOR: "1", HOME: ROOT, PATH: process.env.PATH ?? "" }, { width: 100, height: 30 });
    try {
      terminal.line(`clear; node ${CLI} session show survey --transcript --state-dir ${STORE}; echo "exit=$?"`);
      const first = await terminal.waitFor((screen) => / · q quit/.test(screen), "the viewer's status bar");
      assert.match(
        first,
        /^→ researcher \{"prompt":"Read notes A"\}\n▸ ⤷ researcher: child session survey-r1 \(completed\) · Read notes A\n→ researcher \{"prompt":"Read notes B"\}\n▸ ⤷ researcher: child session survey-r2 \(completed\) · Read notes B$/m,
      );
      assert.doesNotMatch(first, /A summarizer for A/, "the child's work is folded");
      terminal.type("Enter");
      const opened = await terminal.waitFor((screen) => /^▾ ⤷ researcher: child session survey-r1/m.test(screen), "the child opened");
      assert.match(
        opened,
        /^▾ ⤷ researcher: child session survey-r1 \(completed\) · Read notes A \(\+7 lines\)\n {2}› Read notes A\n {2}A summarizer for A\.\n {2}→ summarizer \{"prompt":"Summarize notes A"\}\n {2}⤷ summarizer: child session survey-r1-s1 \(completed\)\n {2}│ › Summarize notes A\n {2}│ red, in short\n {2}← summarizer: red, in short\n {2}notes A say red\n→ researcher \{"prompt":"Read notes B"\}$/m,
      );
      terminal.type("Enter");
      await terminal.waitFor(
        (screen) => /^▸ ⤷ researcher: child session survey-r1/m.test(screen) && !/A summarizer for A/.test(screen),
        "the child folded again",
      );
      terminal.type("q");
      await terminal.waitFor((screen) => /^exit=0$/m.test(screen), "the viewer's exit");
    } finally {
      terminal.close();
    }
  });

  it("finds a search's term inside a child's folded work, a grandchild's included, and opens the child to show it", async () => {
    const terminal = new TmuxTerminal(SOCKET, "search", { PS1: "$ ", NO_COLOR: "1", HOME: ROOT, PATH: process.env.PATH ?? "" }, { width: 100, height: 30 });
    try {
      terminal.line(`clear; node ${CLI} session show survey --transcript --state-dir ${STORE}; echo "exit=$?"`);
      await terminal.waitFor((screen) => / · q quit/.test(screen), "the viewer's status bar");
      terminal.type("/");
      terminal.type("-l", "in short");
      await terminal.waitFor((screen) => /^\/in short$/m.test(screen), "the search typed in the status bar");
      terminal.type("Enter");
      const found = await terminal.waitFor((screen) => /^▾ ⤷ researcher: child session survey-r1/m.test(screen), "the child opened at the match");
      assert.match(found, /^ {2}│ red, in short$/m, "the grandchild's answer, inside the child's work");
      assert.match(found, /^▸ ⤷ researcher: child session survey-r2/m, "the child without the term stays folded");
      await terminal.waitFor((screen) => /\/in short 1 of 1 · /.test(screen), "the matches counted: the one child whose work has it");
      terminal.type("q");
      await terminal.waitFor((screen) => /^exit=0$/m.test(screen), "the viewer's exit");
    } finally {
      terminal.close();
    }
  });
});

describe("the HTML page folds a child session's work into the call that started it", { skip: skipWithout("chromium") }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  async function openPage() {
    const file = join(ROOT, "survey.html");
    const result = await runCli(["session", "export", "survey", "--format", "html", "-o", file, "--state-dir", STORE], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1" },
    });
    assert.equal(result.code, 0, result.stderr);
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    await page.goto(pathToFileURL(file).href);
    return { page, errors };
  }

  it("keeps each child folded until its line is clicked, and its own child folded inside it until that is clicked", async () => {
    const { page, errors } = await openPage();
    assert.equal(await page.locator("details.child").count(), 3, "survey-r1, survey-r2, and survey-r1-s1 inside survey-r1");
    const child = page.locator('details.child[data-session="survey-r1"]');
    const grandchild = child.locator('details.child[data-session="survey-r1-s1"]');
    assert.match(await child.locator("> summary").innerText(), /^⤷ researcher: child session survey-r1 \(completed\) · Read notes A$/);
    assert.equal(await child.locator("> .work").isVisible(), false);
    await child.locator("> summary").click();
    assert.equal(await child.getAttribute("open"), "");
    assert.match(await child.locator("> .work").innerText(), /Read notes A[\s\S]*A summarizer for A\.[\s\S]*notes A say red/);
    assert.equal(await grandchild.locator("> .work").isVisible(), false, "the grandchild stays folded");
    await grandchild.locator("> summary").click();
    assert.match(await grandchild.locator("> .work").innerText(), /Summarize notes A[\s\S]*red, in short/);
    assert.deepEqual(errors, []);
  });

  it("a search finds text in a child's work and opens every fold around it", async () => {
    const { page } = await openPage();
    await page.locator("#search").fill("summarizer for A");
    assert.equal(await page.locator("#count").innerText(), "1 of 1", "the child's fold matches on its own line, not on its work's text");
    assert.equal(await page.locator(".hit").isVisible(), true);
    assert.equal(await page.locator('details.child[data-session="survey-r1"]').getAttribute("open"), "");
  });
});
