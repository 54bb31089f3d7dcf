// The routes of `fisk-ai serve` the console calls (docs/server.md), each one typed function.
import { call, query } from "./api.js";
import type { TranscriptEntry } from "./transcript.js";

export interface SessionRow {
  id: string;
  status: string;
  agent?: string;
  title?: string;
  cost?: number;
  tokens?: number;
  updated?: string;
  parent?: string;
}

export interface PendingCall {
  sessionId: string;
  toolUseId: string;
  name: string;
  input: Record<string, unknown>;
  kind: "approval" | "question";
  requestedAt: string;
}

export interface SessionDetail extends SessionRow {
  lastSeq: number;
  children: SessionRow[];
  pending: PendingCall[];
}

export interface TranscriptWindow {
  entries: TranscriptEntry[];
  /** The first record's seq in this window: ask `before` it for the earlier ones. */
  firstSeq: number;
  lastSeq: number;
  more: boolean;
}

export interface QueueView {
  entries: { sessionId: string; state: string; queued: string; followUps: number }[];
  workers: { id: string; host: string; pid: number; since: string; heartbeat: string }[];
}

export interface Me {
  name: string;
  tenant: string;
  roles: string[];
  csrf: string;
}

const API = "/v1";
const id = encodeURIComponent;

export const storeEventsUrl = () => `${API}/events`;
export const sessionEventsUrl = (session: string, after: number) => `${API}/sessions/${id(session)}/events${query({ after, view: "transcript" })}`;
export const exportUrl = (session: string) => `${API}/sessions/${id(session)}/export`;

export const me = () => call<Me>("GET", `${API}/me`);
export const signIn = (key: string) => call<Me>("POST", "/console/sign-in", { key });
export const signOut = () => call<void>("POST", "/console/sign-out");

export const listSessions = (filters: { search: string; status: string; cursor: string | undefined }) =>
  call<{ rows: SessionRow[]; next?: string }>("GET", `${API}/sessions${query({ q: filters.search, status: filters.status, cursor: filters.cursor })}`);
export const getSession = (session: string) => call<SessionDetail>("GET", `${API}/sessions/${id(session)}`);
export const transcript = (session: string, before?: number) =>
  call<TranscriptWindow>("GET", `${API}/sessions/${id(session)}/transcript${query({ before, limit: 200 })}`);

export const followUp = (session: string, prompt: string) => call<void>("POST", `${API}/sessions/${id(session)}/follow-ups`, { prompt, ifRunning: "queue" });
export const suspend = (session: string) => call<void>("POST", `${API}/sessions/${id(session)}/suspend`);
export const fork = (session: string, atSeq: number | undefined) =>
  call<{ id: string }>("POST", `${API}/sessions/${id(session)}/fork`, atSeq === undefined ? {} : { at: atSeq });
export const compact = (session: string) => call<void>("POST", `${API}/sessions/${id(session)}/compact`);
export const rename = (session: string, title: string) => call<void>("PATCH", `${API}/sessions/${id(session)}`, { title });
export const remove = (session: string) => call<void>("DELETE", `${API}/sessions/${id(session)}`);

export const approvals = () => call<{ calls: PendingCall[] }>("GET", `${API}/approvals`);
export const decide = (call_: PendingCall, decision: { verdict: "approve" } | { verdict: "deny"; reason: string } | { verdict: "answer"; answer: string }) =>
  call<{ decidedBy: string }>("POST", `${API}/sessions/${id(call_.sessionId)}/calls/${id(call_.toolUseId)}/decision`, decision);

export const queue = () => call<QueueView>("GET", `${API}/queue`);
export const withdraw = (session: string) => call<void>("DELETE", `${API}/queue/${id(session)}`);
export const agents = () => call<{ agents: { name: string; model: string }[] }>("GET", `${API}/agents`);
export const startRun = (agent: string, prompt: string) => call<{ id: string }>("POST", `${API}/runs`, { agent, prompt });
