// The types of the API's requests and answers, as the typed client (fisk-client.ts) and the
// console (console/src/) use them: declarations only, so the browser's bundle imports them
// without the client's Node-side code. tsc holds each to the server's schema both ways.
import type { z } from "@hono/zod-openapi";
import type {
  DecisionBody,
  DecisionResultSchema,
  JournalRecordSchema,
  RecordsSchema,
  SessionListQuery,
  SessionListSchema,
  SessionOverviewSchema,
  SessionSchema,
  StartRunBody,
  WaitingCallSchema,
  WaitResult,
} from "../server/schemas.js";

/** The body that starts a session. */
export interface StartRun {
  /** The name of one of the served agents. */
  agent: string;
  /** What the agent should do. */
  prompt: string;
  /** The new session's id (default: a new one, or one made from the Idempotency-Key). */
  name?: string | undefined;
  /** The new session's title. */
  title?: string | undefined;
}
/** A decision on a waiting call: approve it, deny it with a reason, or answer its question. */
export type Decision =
  | {
      /** Runs the call. */
      decision: "approve";
    }
  | {
      /** Refuses the call. */
      decision: "deny";
      /** Why, as the agent is told. */
      reason: string;
    }
  | {
      /** Answers the question. */
      decision: "answer";
      /** The answer, as the agent is told. */
      answer: string;
    };
/** A tool call waiting for a decision. */
export interface WaitingCall {
  /** The session it is of. */
  runId: string;
  /** The call's id. */
  toolUseId: string;
  /** The tool's name. */
  name: string;
  /** The call's input. */
  input: Record<string, unknown>;
  /** Whether it waits on an approval or an answer. */
  kind: "approval" | "question";
  /** When it began to wait. */
  requestedAt: string;
  /** The sessions from the root down to the one that made the call, when a child's. */
  path?: string[] | undefined;
}
/** What a decision did: the calls decided, those still waiting, and whether the run was queued again. */
export interface DecisionResult {
  /** The session decided on. */
  runId: string;
  /** The calls decided. */
  decided: {
    /** The call's id. */
    tool_use_id: string;
    /** The decision taken. */
    decision: string;
    /** Who took it. */
    decided_by: string;
    [field: string]: unknown;
  }[];
  /** The calls still waiting. */
  waiting: WaitingCall[];
  /** The run was queued again to go on. */
  queued?: boolean | undefined;
}
/** How a wait ended: the run's end, or the timeout. */
export interface Outcome {
  /** The session waited on. */
  runId: string;
  /** False: the timeout came first, the run goes on. */
  done: boolean;
  /** The terminal reason: completed, awaiting_approval, suspended, error... */
  reason?: string | undefined;
  /** The agent's final answer. */
  answer?: string | undefined;
  /** What went wrong, or what the run waits on. */
  message?: string | undefined;
}
/** One record of a session's journal, as stored (docs/records.md has each kind). */
export interface JournalRecord {
  /** Its place in the journal. */
  seq: number;
  /** The record's kind. */
  protocol: string;
  [field: string]: unknown;
}
/** A session's summary. */
export interface Session {
  /** Its id. */
  runId: string;
  /** Running, a terminal reason (completed, awaiting_approval, suspended, error...), open, moved or corrupt. */
  status: string;
  /** Its title. */
  title?: string | undefined;
  /** Its first prompt. */
  prompt?: string | undefined;
  /** When it was started. */
  created?: string | undefined;
  /** When it was last written. */
  updated: string;
  /** The seq of its last record. */
  lastSeq: number;
  /** The session it is a child of. */
  parent?: string | undefined;
  /** The served agent it was started with, when one of them. */
  agent?: string | undefined;
  /** The model it was started with. */
  model?: string | undefined;
  /** What its model calls cost in US dollars, the priced ones. */
  cost?: number | undefined;
  /** The tokens of its model calls, every tier summed. */
  tokens?: number | undefined;
  /** The models of its calls that have no price, not in `cost`. */
  unpriced?: string[] | undefined;
}
/** A page of sessions. */
export interface SessionList {
  /** The sessions, newest first. */
  sessions: Session[];
  /** The cursor of the next page, when there is one. */
  next?: string | undefined;
}
/** The filters and page of a session listing, as query strings. */
export interface SessionQuery {
  /** Statuses, comma-separated. */
  status?: string;
  /** The agent that ran them. */
  agent?: string;
  /** Text the title or prompt holds. */
  q?: string;
  /** The session they are children of. */
  parent?: string;
  /** Last written at or after, RFC 3339. */
  since?: string;
  /** The `next` of the page before. */
  cursor?: string;
  /** How many at most. */
  limit?: string;
}
/** One session: its summary, each model call priced, its total, its children and its waiting calls. */
export interface SessionOverview {
  /** Its summary. */
  session: Session;
  /** Each model call, priced (cost null: the model has no price). */
  calls: {
    /** The call's record. */
    seq: number;
    /** The kind of call. */
    kind: string;
    /** The model called. */
    model: string;
    /** The tokens it used. */
    usage: Record<string, unknown>;
    /** Its cost, or null when the model has no price. */
    cost: number | null;
    /** Copied from the session it was forked from. */
    copied: boolean;
    [field: string]: unknown;
  }[];
  /** The calls' total. */
  total: {
    /** The tokens used. */
    usage: Record<string, unknown>;
    /** The cost of the priced calls. */
    cost: number;
    /** The models with no price. */
    unpriced: string[];
  };
  /** Its child sessions. */
  children: {
    /** The child's id. */
    runId: string;
    /** The child's status. */
    status: string;
    /** How far below this session. */
    depth: number;
  }[];
  /** The calls waiting for a decision. */
  waiting: WaitingCall[];
}
/** A page of a session's records. */
export interface Records {
  /** The records, in seq order. */
  records: JournalRecord[];
  /** The seq the next page starts after, when there is one. */
  next?: number | undefined;
}
// The types above are the schemas' (tsc checks each both ways).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const conforms: [
  Same<StartRun, z.input<typeof StartRunBody>>,
  Same<Decision, z.input<typeof DecisionBody>>,
  Same<DecisionResult, z.output<typeof DecisionResultSchema>>,
  Same<WaitingCall, z.output<typeof WaitingCallSchema>>,
  Same<Outcome, z.output<typeof WaitResult>>,
  Same<JournalRecord, z.output<typeof JournalRecordSchema>>,
  Same<Session, z.output<typeof SessionSchema>>,
  Same<SessionList, z.output<typeof SessionListSchema>>,
  Same<SessionQuery, Partial<Record<keyof z.input<typeof SessionListQuery>, string>>>,
  Same<SessionOverview, z.output<typeof SessionOverviewSchema>>,
  Same<Records, z.output<typeof RecordsSchema>>,
] = [true, true, true, true, true, true, true, true, true, true, true];
void conforms;
/** An agent the server serves. */
export interface Agent {
  /** What clients name it by. */
  name: string;
  /** Its model's provider. */
  provider: string;
  /** Its model. */
  model: string;
  /** Its tools. */
  tools: {
    /** The tool's name. */
    name: string;
    /** What the tool does, as the model is told. */
    description: string;
    /** Its calls wait for an approval. */
    approval: boolean;
  }[];
}
/** A run of the worker pool's queue. */
export interface QueueItem {
  /** The session. */
  runId: string;
  /** Waiting for a worker, driven by one, or parked until a decision. */
  state: "queued" | "running" | "parked";
  /** When it was queued. */
  queued: string;
  /** It runs a follow-up prompt. */
  followUp: boolean;
  /** The process driving it, when one is. */
  holder?: Worker | undefined;
  /** How many runs are ahead of it. */
  behind: number;
}
/** A process that drives runs. */
export interface Worker {
  /** Its process id. */
  pid: number;
  /** The host it runs on. */
  host: string;
  /** When it started. */
  started: string;
}
/** A process that drives runs, with the runs it drives now. */
export interface WorkerStatus extends Worker {
  /** The sessions it drives. */
  runs: string[];
}
/** A queue entry, as the store-wide stream names it. */
export interface QueueEntry {
  /** The session. */
  runId: string;
  /** Its state in the queue. */
  state: string;
}
/** A change of the pool's queue, from the store-wide stream. */
export type StoreEvent =
  | {
      /** The queue as it is when the stream opens. */
      kind: "snapshot";
      /** Every entry of the queue. */
      entries: QueueEntry[];
    }
  | {
      /** A run was queued, or parked until a decision. */
      kind: "queued" | "parked";
      /** The run's entry. */
      entry: QueueEntry;
    }
  | {
      /** A run left the queue. */
      kind: "left";
      /** The session. */
      runId: string;
      /** How its run ended. */
      status: string;
      /** The seq of its last record. */
      lastSeq: number;
    };

/** An RFC 9457 problem, as the server answers every error. */
export interface Problem {
  /** A URI naming the kind of problem. */
  type: string;
  /** A short summary of the kind of problem. */
  title: string;
  /** The HTTP status it was answered with. */
  status: number;
  /** What went wrong, for a person to read. */
  detail: string;
  /** fisk-ai's error code (docs/server.md). */
  code: string;
  /** The run the error is of, when it is of one. */
  runId?: string | undefined;
  [extension: string]: unknown;
}
