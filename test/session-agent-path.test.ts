// covers: src/session/session-agent-path.ts
// tier: quick
// process: shared
// The one rule for which agent.yaml applies to a stored session, which a resume, a
// compaction, `session show` and the server's compact route all ask.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sessionAgentPath } from "../src/session/session-agent-path.js";

const recorded = { config: "/agents/recorded.yaml" };
const there = (path: string) => path === "/agents/recorded.yaml";

describe("sessionAgentPath", () => {
  it("the one given, then the recorded one while it is at hand, then the fallback", () => {
    assert.equal(sessionAgentPath(recorded, { given: "mine.yaml", available: there, fallback: "agent.yaml" }), "mine.yaml");
    assert.equal(sessionAgentPath(recorded, { available: there, fallback: "agent.yaml" }), "/agents/recorded.yaml");
    assert.equal(sessionAgentPath(recorded, { available: () => false, fallback: "agent.yaml" }), "agent.yaml");
    assert.equal(sessionAgentPath({}, { available: there, fallback: "agent.yaml" }), "agent.yaml");
    assert.equal(sessionAgentPath(undefined, {}), undefined);
  });

  it("a foreign session's journal chooses no agent.yaml", () => {
    assert.equal(sessionAgentPath(recorded, { foreign: "signed by another installation", available: there, fallback: "agent.yaml" }), "agent.yaml");
  });

  it("by default, the recorded file is at hand when it exists", () => {
    assert.equal(sessionAgentPath({ config: "/no/such/agent.yaml" }, { fallback: "agent.yaml" }), "agent.yaml");
    assert.equal(sessionAgentPath({ config: process.execPath }), process.execPath);
  });
});
