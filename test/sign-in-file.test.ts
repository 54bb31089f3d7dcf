// covers: src/tools/mcp/sign-in-file.ts
// The sign-in file of an MCP server: written through a temp name this process creates
// exclusively (a planted symlink at a guessable name is never followed), in a directory
// tightened to 0700 even when it was there before with wider rights.
import assert from "node:assert/strict";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { SignInFile } from "../src/tools/mcp/sign-in-file.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-sign-in-file-")));
after(() => rmSync(root, { recursive: true, force: true }));

describe("the MCP sign-in file", () => {
  it("never writes through a symlink planted where a temp name could be guessed", () => {
    const dir = join(root, "planted");
    mkdirSync(dir, { mode: 0o700 });
    const outside = join(root, "outside.txt");
    writeFileSync(outside, "untouched\n");
    const file = new SignInFile(dir, "web");
    for (const guess of [`${file.path}.${process.pid}.tmp`, `${file.path}.tmp`]) symlinkSync(outside, guess);
    file.update({ url: "http://127.0.0.1:1/mcp", tokens: { access_token: "tok", token_type: "Bearer" } });
    assert.equal(readFileSync(outside, "utf8"), "untouched\n");
    assert.equal(lstatSync(file.path).isFile(), true);
    assert.equal(statSync(file.path).mode & 0o777, 0o600);
    assert.deepEqual(file.read().tokens, { access_token: "tok", token_type: "Bearer" });
    assert.deepEqual(
      readdirSync(dir).filter((name) => name.endsWith(".tmp") && !lstatSync(join(dir, name)).isSymbolicLink()),
      [],
      "no temp file left",
    );
  });

  it("tightens a directory that was there with wider rights to 0700", () => {
    const dir = join(root, "wide");
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    new SignInFile(dir, "web").update({ url: "http://127.0.0.1:1/mcp" });
    assert.equal(statSync(dir).mode & 0o777, 0o700);
  });
});
