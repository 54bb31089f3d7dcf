// The shapes the API takes and gives: the handlers validate with them and /openapi.json is
// generated from them, so the document cannot drift from what a route does.
import { z } from "@hono/zod-openapi";
import { IF_RUNNING } from "../pool/submit-run.js";
import { RUN_ID_MAX_LENGTH, RUN_ID_PATTERN, TITLE_MAX_LENGTH } from "../runstate/records/records.js";

/** A session id: what a store keeps as a file name or a subject token, so `/`, `..` and NUL never reach one. */
export const RunId = z
  .string()
  .max(RUN_ID_MAX_LENGTH)
  .regex(RUN_ID_PATTERN)
  .openapi({
    description: `1 to ${RUN_ID_MAX_LENGTH} ASCII letters, digits, '_' or '-', starting with a letter or digit`,
    example: "2Qx9zv1oQ4bYbGm3p6f4Z0aKq1c",
  });

/** A tool call's id, as the model gave it. */
export const CallId = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[\w-]+$/);

/** A record's seq: 1 for the meta record, then one more for each record. */
export const Seq = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const Title = z
  .string()
  .min(1)
  .max(TITLE_MAX_LENGTH)
  .regex(/^[^\r\n]*$/)
  .refine((title) => title.trim() !== "", "a title is a few words, not blanks");

export const SessionParams = z.object({ id: RunId.openapi({ param: { name: "id", in: "path" } }) });
export const CallParams = SessionParams.extend({ callId: CallId.openapi({ param: { name: "callId", in: "path" } }) });
export const AgentParams = z.object({
  name: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: "name", in: "path" } }),
});

/** A record of the journal as stored: docs/records.md has each kind. */
export const JournalRecordSchema = z
  .looseObject({ seq: z.number().int(), protocol: z.string() })
  .openapi("JournalRecord", { description: "one record of a session's journal, as stored (schemas/ has the JSON Schema of each kind)" });

export const ProblemSchema = z
  .looseObject({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().openapi({ description: "fisk-ai's error code (docs/server.md lists them)" }),
    runId: z.string().optional(),
  })
  .openapi("Problem");

export const StartRunBody = z
  .strictObject({
    agent: z.string().min(1).max(200).openapi({ description: "the name of one of the served agents (GET /v1/agents)" }),
    prompt: z.string().min(1).openapi({ description: "what the agent should do" }),
    name: RunId.optional().openapi({ description: "the new session's id (default: a new KSUID, or one made from the Idempotency-Key)" }),
    title: Title.optional(),
  })
  .openapi("StartRun");

export const IdempotencyHeaders = z.object({
  "idempotency-key": z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x21-\x7e]+$/)
    .optional()
    .openapi({ param: { name: "idempotency-key", in: "header" }, description: "the same key again returns the same session instead of starting another" }),
});

export const StartedRun = z.object({ runId: z.string(), replayed: z.boolean() }).openapi("StartedRun");

export const FollowUpBody = z
  .strictObject({
    prompt: z.string().min(1),
    ifRunning: z
      .enum(IF_RUNNING)
      .default("queue")
      .openapi({ description: "when the session is running or queued: wait behind it, be refused (409), or interrupt it" }),
  })
  .openapi("FollowUp");

export const WaitQuery = z.object({
  timeout: z.coerce.number().int().min(0).max(120_000).default(30_000).openapi({ description: "how long to wait, in milliseconds" }),
});

export const WaitResult = z
  .object({
    runId: z.string(),
    done: z.boolean().openapi({ description: "false: the timeout came first, the run goes on" }),
    reason: z.string().optional().openapi({ description: "the terminal reason: completed, awaiting_approval, suspended, error..." }),
    answer: z.string().optional(),
    message: z.string().optional(),
  })
  .openapi("WaitResult");

export const EventsQuery = z.object({
  after: Seq.optional().openapi({ description: "the seq of the last record the client has (Last-Event-ID wins when both are given)" }),
});

export const EventsHeaders = z.object({
  "last-event-id": z
    .string()
    .regex(/^\d{1,15}$/)
    .optional()
    .openapi({ param: { name: "last-event-id", in: "header" } }),
});

export const WaitingCallSchema = z
  .object({
    runId: z.string(),
    toolUseId: z.string(),
    name: z.string(),
    input: z.record(z.string(), z.unknown()),
    kind: z.enum(["approval", "question"]),
    requestedAt: z.string(),
    path: z.array(z.string()).optional(),
  })
  .openapi("WaitingCall");

export const DecisionBody = z
  .discriminatedUnion("decision", [
    z.strictObject({ decision: z.literal("approve") }),
    z.strictObject({ decision: z.literal("deny"), reason: z.string().min(1).max(10_000) }),
    z.strictObject({ decision: z.literal("answer"), answer: z.string().min(1).max(100_000) }),
  ])
  .openapi("Decision");

export const DecisionResultSchema = z
  .object({
    runId: z.string(),
    decided: z.array(z.looseObject({ tool_use_id: z.string(), decision: z.string(), decided_by: z.string() })),
    waiting: z.array(WaitingCallSchema),
    queued: z.boolean().optional(),
  })
  .openapi("DecisionResult");

export const SessionSchema = z
  .object({
    runId: z.string(),
    status: z.string().openapi({ description: "running, a terminal reason (completed, awaiting_approval, suspended, error...), open, moved or corrupt" }),
    title: z.string().optional(),
    prompt: z.string().optional(),
    created: z.string().optional(),
    updated: z.string(),
    lastSeq: z.number().int(),
    parent: z.string().optional(),
    agent: z.string().optional().openapi({ description: "the served agent it was started with (its agent.yaml), when one of them" }),
    model: z.string().optional().openapi({ description: "the model it was started with" }),
    cost: z.number().optional().openapi({ description: "what its model calls cost in US dollars, the priced ones (as `total.cost` of GET /v1/sessions/{id})" }),
    tokens: z.number().int().optional().openapi({ description: "the tokens of its model calls, every tier summed" }),
    unpriced: z.array(z.string()).optional().openapi({ description: "the models of its calls that have no price, not in `cost`" }),
  })
  .openapi("Session");

export const SessionListQuery = z.object({
  status: z
    .string()
    .regex(/^[a-z_]+(,[a-z_]+)*$/)
    .optional()
    .openapi({ description: "statuses, comma-separated" }),
  agent: z.string().min(1).max(200).optional(),
  q: z.string().min(1).max(1000).optional().openapi({ description: "text the title or prompt holds" }),
  parent: RunId.optional(),
  since: z.iso.datetime({ offset: true }).optional().openapi({ description: "last written at or after, RFC 3339" }),
  cursor: RunId.optional().openapi({ description: "the `next` of the page before" }),
  // A page is listed from the whole store's summaries, so a client that wants every session takes them in one page, not ten.
  limit: z.coerce.number().int().min(1).max(10_000).default(100).openapi({ description: "sessions in the page, up to 10,000" }),
});

export const SessionListSchema = z.object({ sessions: z.array(SessionSchema), next: z.string().optional() }).openapi("SessionList");

const UsageSchema = z.looseObject({});

export const SessionOverviewSchema = z
  .object({
    session: SessionSchema,
    calls: z
      .array(
        z.looseObject({ seq: z.number().int(), kind: z.string(), model: z.string(), usage: UsageSchema, cost: z.number().nullable(), copied: z.boolean() }),
      )
      .openapi({ description: "each model call, priced (cost null: the model has no price): the cost turn by turn" }),
    total: z.object({ usage: UsageSchema, cost: z.number(), unpriced: z.array(z.string()) }),
    children: z.array(z.object({ runId: z.string(), status: z.string(), depth: z.number().int() })),
    waiting: z.array(WaitingCallSchema),
  })
  .openapi("SessionOverview");

export const RecordsQuery = z.object({
  after: Seq.optional(),
  before: Seq.optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(1000),
});

export const RecordsSchema = z.object({ records: z.array(JournalRecordSchema), next: z.number().int().optional() }).openapi("Records");

export const ForkBody = z.strictObject({ at: z.number().int().min(1).optional(), name: RunId.optional() }).openapi("Fork");
export const RenameBody = z.strictObject({ title: Title }).openapi("Rename");
export const ImportQuery = z.object({ name: RunId.optional() });
