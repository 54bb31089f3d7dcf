// covers: src/cli/run/render.ts, src/cli/run/terminal-confirm.ts, src/tools/tool.ts
// process: shared
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { styleFor } from "../src/cli/run/render.js";
import { terminalAskUser, terminalConfirm } from "../src/cli/run/terminal-confirm.js";
import { defineTool } from "../src/tools/tool.js";

/** A stream that says it is a terminal, as process.stdin/stderr do on one. */
function fakeTerminal(): NodeJS.ReadStream & NodeJS.WriteStream {
  return Object.assign(new PassThrough(), { isTTY: true }) as unknown as NodeJS.ReadStream & NodeJS.WriteStream;
}

const rm = defineTool({ name: "rm", description: "", input: { type: "object" }, confirm: true, run: async () => "" });

describe("the terminal", () => {
  it("asks y/N before a confirm tool, and takes only yes for yes", async () => {
    for (const [answer, allowed] of [
      ["y", true],
      ["YES", true],
      ["n", false],
      ["", false],
      ["sure", false],
    ] as const) {
      const stdin = fakeTerminal();
      const stderr = fakeTerminal();
      let asked = "";
      stderr.on("data", (chunk: Buffer) => (asked += chunk.toString()));
      const decision = terminalConfirm(stdin, stderr)?.(rm, { path: "/tmp/x" });
      stdin.write(`${answer}\n`);
      assert.equal(await decision, allowed, `answer ${JSON.stringify(answer)}`);
      assert.match(asked, /Run rm \{"path":"\/tmp\/x"\}\? \[y\/N\] /);
    }
  });

  it("denies the call and passes Ctrl-C at the prompt on to the process, to suspend the run", async () => {
    const stdin = fakeTerminal();
    const interrupted = new Promise<void>((resolve) => process.once("SIGINT", () => resolve()));
    const decision = terminalConfirm(stdin, fakeTerminal())?.(rm, {});
    stdin.write("\x03");
    assert.equal(await decision, false);
    // A signal listener does not keep the event loop alive: a timer waits for it.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([interrupted, new Promise((_resolve, reject) => (timer = setTimeout(() => reject(new Error("no SIGINT reached the process")), 5000)))]);
    clearTimeout(timer);
  });

  it("has no one to ask where stdin or stderr is not a terminal: the run parks the call (or, unjournaled, denies it)", async () => {
    const pipe = new PassThrough() as unknown as NodeJS.ReadStream;
    assert.equal(terminalConfirm(pipe, fakeTerminal()), undefined);
    assert.equal(terminalConfirm(fakeTerminal(), new PassThrough() as unknown as NodeJS.WriteStream), undefined);
    assert.equal(terminalAskUser(pipe, fakeTerminal()), undefined);
  });

  it("asks an ask_user question and takes the line typed as the answer", async () => {
    const stdin = fakeTerminal();
    const stderr = fakeTerminal();
    let asked = "";
    stderr.on("data", (chunk: Buffer) => (asked += chunk.toString()));
    const answer = terminalAskUser(stdin, stderr)?.("Which region?");
    stdin.write("eu-west\n");
    assert.equal(await answer, "eu-west");
    assert.match(asked, /The model asks: Which region\?\n> /);
  });

  it("colors nothing under NO_COLOR, TERM=dumb or FORCE_COLOR=0, nor off a terminal (the colored cases: cli-live-status)", () => {
    for (const env of [{ NO_COLOR: "1" }, { TERM: "dumb" }, { FORCE_COLOR: "0" }, { NO_COLOR: "1", FORCE_COLOR: "1" }]) {
      assert.equal(styleFor(fakeTerminal(), env).red("x"), "x", JSON.stringify(env));
    }
    assert.equal(styleFor(new PassThrough() as unknown as NodeJS.WriteStream, {}).red("x"), "x");
  });
});
