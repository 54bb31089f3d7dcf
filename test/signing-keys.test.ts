// covers: src/trust/keyring.ts, src/cli/signing-key/signing-key-command.ts, src/cli/signing-key/signing-key.ts
// The keyring through the built CLI: `signing-key rotate` adds a key that signs from then on
// while the keys before it still verify what they signed; a decision under a key removed
// from the keyring does not count and says which key; and each way a keyring cannot be used
// is one line naming the file and what to do, with nothing journaled.
import assert from "node:assert/strict";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runCli } from "./helpers/cli-harness.js";

const EXAMPLE = new URL("../../examples/approvals/", import.meta.url).pathname;

let root: string;
let config: string;

/** A user with a home of their own (where their keyring is made), a working directory and a file store. */
function user(name: string, extraEnv: NodeJS.ProcessEnv = {}) {
  const home = join(root, name);
  const work = join(home, "work");
  const state = join(home, "state");
  mkdirSync(work, { recursive: true });
  const env = { PATH: process.env.PATH, HOME: home, NO_COLOR: "1", ...extraEnv };
  return {
    home,
    work,
    keyring: join(home, ".config", "fisk-ai", "signing-keys.json"),
    cli: (args: string[], more: NodeJS.ProcessEnv = {}) => runCli([...args, "--state-dir", state], { cwd: work, env: { ...env, ...more } }),
    keys: (args: string[], more: NodeJS.ProcessEnv = {}) => runCli(["signing-key", ...args], { cwd: work, env: { ...env, ...more } }),
    park: async (id: string) => {
      const parked = await runCli(
        ["run", "--config", config, "--checkpoint", "--approvals", "defer", "--name", id, "Tag release 1.4.2", "--state-dir", state],
        {
          cwd: work,
          env,
        },
      );
      assert.equal(parked.code, 10, parked.stderr);
    },
    decisions: (id: string) =>
      readFileSync(join(state, `${id}.json`), "utf8")
        .split("\n")
        .filter((line) => line.includes(".approval_decision"))
        .map((line) => (JSON.parse(line) as { approval_decision: { signature?: { key_id: string } } }).approval_decision),
    releases: () => readFileSync(join(work, "releases.txt"), "utf8"),
  };
}

describe("signing keys", () => {
  before(() => {
    root = mkdtempSync(join(tmpdir(), "fisk-ai-signing-keys-"));
    mkdirSync(join(root, "agent"));
    for (const file of ["agent.yaml", "release.script.yaml"]) copyFileSync(join(EXAMPLE, file), join(root, "agent", file));
    config = join(root, "agent", "agent.yaml");
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it("rotate: the new key signs, decisions under the older one still count, and one removed from the keyring does not", async () => {
    const alice = user("alice");
    await alice.park("a");
    const approved = await alice.cli(["session", "approve", "a"]);
    assert.equal(approved.code, 0, approved.stderr);
    const first = alice.decisions("a")[0]?.signature?.key_id as string;
    assert.match(first, /^\d{4}-\d{2}-\d{2}-[0-9a-f]{8}$/);

    const rotated = await alice.keys(["rotate"]);
    assert.equal(rotated.code, 0, rotated.stderr);
    const second = JSON.parse(readFileSync(alice.keyring, "utf8")).current as string;
    assert.notEqual(second, first);
    assert.equal(rotated.stdout, `signing key ${second} now signs decisions (${alice.keyring}); 1 older key still verifies what it signed\n`);
    const listed = await alice.keys(["ls"]);
    assert.deepEqual([listed.code, listed.stdout], [0, `${second}  current\n${first}\n`], listed.stderr);
    assert.equal(listed.stdout.includes(JSON.parse(readFileSync(alice.keyring, "utf8")).keys[first]), false, "ls shows no secret");

    const resumed = await alice.cli(["run", "--resume", "a"]);
    assert.equal(resumed.code, 0, `the approval made with the rotated-out key counts: ${resumed.stderr}`);
    assert.equal(alice.releases(), "1.4.2\n");

    await alice.park("b");
    assert.equal((await alice.cli(["session", "approve", "b"])).code, 0);
    assert.equal(alice.decisions("b")[0]?.signature?.key_id, second, "only the current key signs");

    const current = await alice.keys(["rm", second]);
    assert.deepEqual([current.code, current.stderr], [2, `fisk-ai: key ${second} is the one that signs: rotate to a new key first, then remove it\n`]);
    assert.equal((await alice.keys(["rotate"])).code, 0);
    const removed = await alice.keys(["rm", second]);
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(removed.stdout, `removed key ${second} from ${alice.keyring}: what it signed no longer counts here\n`);
    const unknown = await alice.keys(["rm", "no-such-key"]);
    assert.deepEqual([unknown.code, unknown.stderr], [2, `fisk-ai: ${alice.keyring} holds no key no-such-key\n`]);

    const shown = await alice.cli(["session", "show", "b"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`not counted.*it is signed with key ${second}, which this installation does not trust`));
    const foreign = await alice.cli(["run", "--resume", "b"]);
    assert.equal(foreign.code, 2, "b's meta was signed with the removed key too: the session is foreign");
    assert.match(foreign.stderr, new RegExp(`session b is foreign \\(its meta is signed with key ${second}, which this installation does not trust\\)`));
    const refused = await alice.cli(["run", "--resume", "b", "--config", config]);
    assert.equal(refused.code, 10, `the call waits for a decision again: ${refused.stderr}`);
    assert.equal(alice.releases(), "1.4.2\n", "the call approved under the removed key never ran");
  });

  it("session mv keeps a decision valid: approved in one store, moved to another, the resume there runs the call", async () => {
    const dave = user("dave");
    await dave.park("moved");
    assert.equal((await dave.cli(["session", "approve", "moved"])).code, 0);
    const other = join(dave.home, "other-state");
    const moved = await dave.cli(["session", "mv", "moved", "--to", other]);
    assert.equal(moved.code, 0, moved.stderr);
    const resumed = await runCli(["run", "--resume", "moved", "--state-dir", other], {
      cwd: dave.work,
      env: { PATH: process.env.PATH, HOME: dave.home, NO_COLOR: "1" },
    });
    assert.equal(resumed.code, 0, `the moved approval counts: ${resumed.stderr}`);
    assert.equal(dave.releases(), "1.4.2\n");
  });

  it("rotate with no keyring yet makes the first key; ls and rm with none say where it would be", async () => {
    const bob = user("bob");
    const none = await bob.keys(["ls"]);
    assert.deepEqual(
      [none.code, none.stderr],
      [2, `fisk-ai: there are no signing keys in ${bob.keyring}: the first decision on your own file store makes them, or fisk-ai signing-key rotate\n`],
    );
    const made = await bob.keys(["rotate"]);
    assert.equal(made.code, 0, made.stderr);
    const id = JSON.parse(readFileSync(bob.keyring, "utf8")).current as string;
    assert.equal(made.stdout, `signing key ${id} now signs decisions (${bob.keyring}); it is the first\n`);
  });

  describe("a keyring that cannot be used is one line naming it and the fix, and nothing is journaled", () => {
    let carol: ReturnType<typeof user>;
    before(async () => {
      carol = user("carol");
      await carol.park("c");
    });

    /** `session approve c` with FISK_AI_SIGNING_KEYS set to `path`: refused with exactly `line`, exit 2, journaling nothing. */
    async function refused(path: string, line: string) {
      const result = await carol.cli(["session", "approve", "c"], { FISK_AI_SIGNING_KEYS: path });
      assert.deepEqual([result.code, result.stderr], [2, `fisk-ai: ${line}\n`]);
      assert.equal(carol.decisions("c").length, 0, "nothing journaled");
    }

    function keyringFile(name: string, text: string, mode = 0o600): string {
      const path = join(carol.home, name);
      writeFileSync(path, text);
      chmodSync(path, mode);
      return path;
    }

    const SHAPE = '(expected {"current": ID, "keys": {ID: BASE64, ...}})';
    const GOOD = Buffer.alloc(32, 7).toString("base64");

    it("a file FISK_AI_SIGNING_KEYS names that does not exist", async () => {
      const path = join(carol.home, "missing.json");
      await refused(path, `FISK_AI_SIGNING_KEYS names ${path}, which does not exist: put the keyring every decider and worker shares there (docs/security.md)`);
    });

    it("FISK_AI_SIGNING_KEYS that is not an absolute path, or names a directory", async () => {
      keyringFile("keys.json", JSON.stringify({ current: "k", keys: { k: GOOD } }));
      await refused("keys.json", "FISK_AI_SIGNING_KEYS is keys.json: name the keyring file by its absolute path");
      await refused(carol.home, `the signing keys in ${carol.home} are a directory, not a keyring file: name the file`);
    });

    it("a file that is not JSON", async () => {
      const path = keyringFile("bad.json", "{not json");
      await refused(path, `the signing keys in ${path} are not usable: not JSON ${SHAPE}`);
    });

    it("a file others can read", async () => {
      const path = keyringFile("open.json", JSON.stringify({ current: "k", keys: { k: GOOD } }), 0o640);
      await refused(path, `the signing keys in ${path} can be read by others: chmod 600 ${path}`);
    });

    it("a key too short, a key that is not base64, and a current naming no key", async () => {
      const short = keyringFile("short.json", JSON.stringify({ current: "k", keys: { k: Buffer.alloc(16).toString("base64") } }));
      await refused(short, `the signing keys in ${short} are not usable: key k is not at least 32 bytes of base64 ${SHAPE}`);
      const junk = keyringFile("junk.json", JSON.stringify({ current: "k", keys: { k: `${GOOD}!!` } }));
      await refused(junk, `the signing keys in ${junk} are not usable: key k is not base64 ${SHAPE}`);
      const current = keyringFile("current.json", JSON.stringify({ current: "other", keys: { k: GOOD } }));
      await refused(current, `the signing keys in ${current} are not usable: current names no key of the file ${SHAPE}`);
    });
  });
});
