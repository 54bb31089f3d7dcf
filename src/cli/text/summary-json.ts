// A session's summary as `session ls --json` lists it and `session show --json` begins it
// (docs/cli-and-sessions.md): its own module, so a listing loads nothing of what a shown
// state needs (the fold's decisions and their signatures).
import { providerOf } from "../../agent/fingerprint.js";
import type { RunSummary } from "../../runstate/store/store.js";

export function summaryJson(summary: RunSummary) {
  return {
    id: summary.runId,
    status: summary.status,
    holder: summary.holder ?? null,
    provider: summary.meta === undefined ? null : providerOf(summary.meta.fingerprint),
    model: summary.meta?.fingerprint.model ?? null,
    created: summary.meta?.created ?? null,
    updated: summary.updated,
    last_seq: summary.lastSeq,
    prompt: summary.meta?.prompt ?? null,
    cwd: summary.meta?.cwd ?? null,
    problem: summary.problem ?? null,
    title: summary.digest?.title ?? null,
    origin: summary.digest?.origin ?? null,
    bytes: summary.digest?.bytes ?? null,
    parent: summary.meta?.parent ?? null,
  };
}
