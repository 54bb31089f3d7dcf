// covers: src/errors/masked-url.ts, src/cli/context/stores.ts, src/backends/jetstream/connection.ts
// A store URL with a user and password in it is never echoed: the CLI's refusal of such a
// --store, and a config's servers: that cannot be reached, name the URL with its credentials masked.
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { maskUrlCredentials, urlHoldsSecret } from "../src/errors/masked-url.js";
import { runCli } from "./helpers/cli-harness.js";
import { freePort } from "./helpers/nats-server.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "fisk-ai-masked-urls-")));
after(() => rmSync(root, { recursive: true, force: true }));
const env = (dir: string) => ({ PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: join(dir, "state"), NO_COLOR: "1" });

describe("store URLs with passwords", () => {
  it("masks the user and password of every URL in a text, and leaves other text as it was", () => {
    assert.equal(
      maskUrlCredentials("at nats://ops:hunter2@10.0.0.1:4222/RUNS and tls://tok@h:1, not a@b or http://h/x@y"),
      "at nats://***@10.0.0.1:4222/RUNS and tls://***@h:1, not a@b or http://h/x@y",
    );
  });

  it("leaves the placeholders of a URL's form (postgres://USER@HOST) as written, and masks a real user, lower-case user too", () => {
    assert.equal(
      maskUrlCredentials("expected postgres://USER@HOST:PORT/DB or nats://USER:PASSWORD@HOST, not postgres://user@h or postgres://USERS@h"),
      "expected postgres://USER@HOST:PORT/DB or nats://USER:PASSWORD@HOST, not postgres://***@h or postgres://***@h",
    );
  });

  it("tells a URL that holds a password or a secret parameter from one that names only a user", () => {
    assert.equal(urlHoldsSecret("postgres://fisk:hunter2@127.0.0.1/runs"), true);
    assert.equal(urlHoldsSecret("postgres://127.0.0.1/runs?password=x"), true);
    assert.equal(urlHoldsSecret("postgres://fisk@127.0.0.1/runs?schema=cli"), false);
    assert.equal(urlHoldsSecret("/a/directory"), false);
  });

  it("--store nats://user:password@... is refused without echoing the password", async () => {
    const dir = mkdtempSync(join(root, "flag-"));
    const result = await runCli(["session", "ls", "--store", "nats://ops:hunter2@127.0.0.1:4222/RUNS"], { cwd: dir, env: env(dir) });
    assert.equal(result.code, 2, result.stderr);
    assert.doesNotMatch(result.stderr + result.stdout, /hunter2|ops:/);
    assert.match(result.stderr, /^fisk-ai: store "nats:\/\/\*\*\*@127\.0\.0\.1:4222\/RUNS": expected nats:\/\/HOST:PORT\/STREAM/);
  });

  it("servers: with a password that cannot be reached names the server without it", async () => {
    const dir = mkdtempSync(join(root, "config-"));
    const port = await freePort();
    writeFileSync(join(dir, "agent.yaml"), `session: { backend: jetstream, servers: "nats://ops:hunter2@127.0.0.1:${port}", stream: RUNS }\n`);
    const result = await runCli(["session", "ls"], { cwd: dir, env: env(dir) });
    assert.notEqual(result.code, 0);
    assert.doesNotMatch(result.stderr + result.stdout, /hunter2/);
    assert.match(result.stderr, new RegExp(`nats://\\*\\*\\*@127\\.0\\.0\\.1:${port}`));
  });
});
