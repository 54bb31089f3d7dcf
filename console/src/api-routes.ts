// The routes of `fisk-ai serve` the console calls (docs/server.md), each one typed function.
import { call, query } from "./api.js";
import type { TranscriptEntry } from "./transcript.js";

/** A session as GET /v1/sessions lists it. */
export interface SessionRow {
  runId: string;
  status: string;
  title?: string;
  prompt?: string;
  created?: string;
  updated: string;
  lastSeq: number;
  parent?: string;
  agent?: string;
  model?: string;
  cost?: number;
  tokens?: number;
  unpriced?: string[];
}

export interface PendingCall {
  runId: string;
  toolUseId: string;
  name: string;
  input: Record<string, unknown>;
  kind: "approval" | "question";
  requestedAt: string;
}

/** GET /v1/sessions/{id}: the session, its model calls priced, its children and the calls waiting. */
export interface SessionOverview {
  session: SessionRow;
  calls: { seq: number; model: string; cost: number | null }[];
  total: { usage: Record<string, number>; cost: number; unpriced: string[] };
  children: { runId: string; status: string; depth: number }[];
  waiting: PendingCall[];
}

export interface TranscriptWindow {
  entries: TranscriptEntry[];
  /** The first record's seq in this window: ask `before` it for the earlier ones. */
  firstSeq: number;
  lastSeq: number;
  more: boolean;
}

export interface QueueItem {
  runId: string;
  state: "queued" | "running" | "parked";
  queued: string;
  followUp: boolean;
  holder?: { pid: number; host: string; started: string };
  behind: number;
}

export interface WorkerRow {
  pid: number;
  host: string;
  started: string;
  runs: string[];
}

export interface Me {
  name: string;
  tenant: string;
  roles: string[];
  csrf: string;
}

export type Decision = { decision: "approve" } | { decision: "deny"; reason: string } | { decision: "answer"; answer: string };

const API = "/v1";
const id = encodeURIComponent;

export const storeEventsUrl = () => `${API}/events`;
export const sessionEventsUrl = (session: string, after: number) => `${API}/sessions/${id(session)}/transcript/events${query({ after })}`;
export const exportUrl = (session: string) => `${API}/sessions/${id(session)}/export`;

export const me = () => call<Me>("GET", `${API}/me`);
export const signIn = (key: string) => call<Me>("POST", "/console/sign-in", { key });
export const signOut = () => call<void>("POST", "/console/sign-out");

export const listSessions = (filters: { search: string; status: string; cursor: string | undefined }) =>
  call<{ sessions: SessionRow[]; next?: string }>(
    "GET",
    `${API}/sessions${query({ q: filters.search, status: filters.status, cursor: filters.cursor, limit: 50 })}`,
  );
export const getSession = (session: string) => call<SessionOverview>("GET", `${API}/sessions/${id(session)}`);
export const transcript = (session: string, before?: number) =>
  call<TranscriptWindow>("GET", `${API}/sessions/${id(session)}/transcript${query({ before, limit: 200 })}`);

export const followUp = (session: string, prompt: string) => call<void>("POST", `${API}/sessions/${id(session)}/follow-ups`, { prompt, ifRunning: "queue" });
export const fork = (session: string) => call<{ runId: string }>("POST", `${API}/sessions/${id(session)}/fork`, {});
export const compact = (session: string) => call<void>("POST", `${API}/sessions/${id(session)}/compact`);
export const rename = (session: string, title: string) => call<void>("PATCH", `${API}/sessions/${id(session)}`, { title });
export const remove = (session: string) => call<void>("DELETE", `${API}/sessions/${id(session)}`);

export const approvals = () => call<{ calls: PendingCall[] }>("GET", `${API}/approvals`);
export const decide = (pending: PendingCall, decision: Decision) =>
  call<{ decided: { decided_by: string }[] }>("POST", `${API}/sessions/${id(pending.runId)}/calls/${id(pending.toolUseId)}/decision`, decision);

export const queue = () => call<{ runs: QueueItem[] }>("GET", `${API}/queue`);
export const workers = () => call<{ workers: WorkerRow[] }>("GET", `${API}/workers`);

export const agents = () => call<{ agents: { name: string; model: string }[] }>("GET", `${API}/agents`);
export const startRun = (agent: string, prompt: string) => call<{ runId: string }>("POST", `${API}/runs`, { agent, prompt });
