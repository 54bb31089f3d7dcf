// The routes of `fisk-ai serve` the console calls (docs/server.md), each one typed function.
// The answers' types are the typed client's (src/client/api-types.ts, held to the server's
// schemas there); the console's own routes (the transcript's window, who is signed in) are typed here.
import type {
  Agent,
  Decision,
  DecisionResult,
  QueueItem,
  Session,
  SessionList,
  SessionOverview,
  WaitingCall,
  WorkerStatus,
} from "../../src/client/api-types.js";
import { call, query } from "./api.js";
import type { TranscriptEntry } from "./transcript.js";

export type { Decision, QueueItem, Session, SessionList, SessionOverview, WaitingCall, WorkerStatus };

export interface TranscriptWindow {
  entries: TranscriptEntry[];
  /** The first record's seq in this window: ask `before` it for the earlier ones. */
  firstSeq: number;
  lastSeq: number;
  more: boolean;
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
export const sessionEventsUrl = (session: string, after: number) => `${API}/sessions/${id(session)}/transcript/events${query({ after })}`;
export const exportUrl = (session: string) => `${API}/sessions/${id(session)}/export`;

export const me = () => call<Me>("GET", `${API}/me`);
export const signIn = (key: string) => call<Me>("POST", "/console/sign-in", { key });
export const signOut = () => call<void>("POST", "/console/sign-out");

export const listSessions = (filters: { search: string; status: string; cursor: string | undefined }) =>
  call<SessionList>("GET", `${API}/sessions${query({ q: filters.search, status: filters.status, cursor: filters.cursor, limit: 50 })}`);
export const getSession = (session: string) => call<SessionOverview>("GET", `${API}/sessions/${id(session)}`);
export const transcript = (session: string, before?: number) =>
  call<TranscriptWindow>("GET", `${API}/sessions/${id(session)}/transcript${query({ before, limit: 200 })}`);

export const followUp = (session: string, prompt: string) => call<void>("POST", `${API}/sessions/${id(session)}/follow-ups`, { prompt, ifRunning: "queue" });
export const fork = (session: string) => call<{ runId: string }>("POST", `${API}/sessions/${id(session)}/fork`, {});
export const compact = (session: string) => call<void>("POST", `${API}/sessions/${id(session)}/compact`);
export const rename = (session: string, title: string) => call<void>("PATCH", `${API}/sessions/${id(session)}`, { title });
export const remove = (session: string) => call<void>("DELETE", `${API}/sessions/${id(session)}`);

export const approvals = () => call<{ calls: WaitingCall[] }>("GET", `${API}/approvals`);
export const decide = (pending: WaitingCall, decision: Decision) =>
  call<DecisionResult>("POST", `${API}/sessions/${id(pending.runId)}/calls/${id(pending.toolUseId)}/decision`, decision);

export const queue = () => call<{ runs: QueueItem[] }>("GET", `${API}/queue`);
export const workers = () => call<{ workers: WorkerStatus[] }>("GET", `${API}/workers`);

export const agents = () => call<{ agents: Agent[] }>("GET", `${API}/agents`);
export const startRun = (agent: string, prompt: string) => call<{ runId: string }>("POST", `${API}/runs`, { agent, prompt });
