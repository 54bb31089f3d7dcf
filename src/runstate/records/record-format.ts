// What the journal's records look like without their schemas (docs/backends.md, Records): the
// protocol ids, versions and limits both the zod schemas (record-schemas.ts) and the
// code that never loads zod rely on. Identifiers and field names are the ones the Go
// implementation writes in its version 2 journals, so a journal moves between the two
// unchanged.

/** The record format version stamped in `meta.version`. */
export const RECORD_VERSION = 2;
/**
 * The version a child session's meta carries (meta.parent, docs/sub-agents.md): written
 * like version 2, but stamped 5 so that a reader that does not know the parent link (an
 * older fisk-ai, or the Go implementation, which reads only its own 3) refuses the child
 * as newer instead of resuming it as a top-level session of its own.
 */
export const CHILD_RECORD_VERSION = 5;
/**
 * The newest version read. 3 is the Go implementation's provider-neutral journal
 * (record-v3.ts); 4 adds record kinds (compaction, approvals) to either, so it is a
 * property of the records a journal holds, not of its meta: a journal that never holds
 * one stays a version 2 or 3 journal, exactly as before (RECORD_KIND_SINCE). 5 is a
 * child session's (CHILD_RECORD_VERSION).
 */
export const NEWEST_READABLE_VERSION = CHILD_RECORD_VERSION;

const NAMESPACE = "io.choria.fisk-ai.v1.session";

/** Each record kind's protocol id, the value of a record's `protocol` field. */
export const PROTOCOLS = {
  /** The run's first record: what it is and what it was started with. */
  meta: `${NAMESPACE}.meta`,
  /** A model turn. */
  assistant: `${NAMESPACE}.assistant`,
  /** One tool's result. */
  tool_result: `${NAMESPACE}.tool_result`,
  /** A follow-up prompt. */
  user: `${NAMESPACE}.user`,
  /** How the run stopped. */
  terminal: `${NAMESPACE}.terminal`,
  /** A summary that replaces the older part of the conversation in what the model is sent (version 4). */
  compaction: `${NAMESPACE}.compaction`,
  /** Reverts the latest compaction still in effect (version 4). */
  compaction_undo: `${NAMESPACE}.compaction_undo`,
  /** A call of the pending batch waits for a person's decision (version 4). */
  approval_request: `${NAMESPACE}.approval_request`,
  /** A person's decision on one call: approved, denied, or a question answered (version 4). */
  approval_decision: `${NAMESPACE}.approval_decision`,
  /** A resume took up a batch at rest under a terminal record, before running any of its calls (version 4). */
  resumed: `${NAMESPACE}.resumed`,
  /** The session's title, which the latest one gives (version 4). */
  title: `${NAMESPACE}.title`,
  /** Where a forked or renamed import came from: every record before it was copied (version 4). */
  origin: `${NAMESPACE}.origin`,
  /** The session was moved to another store, and goes on there only (version 4). */
  moved: `${NAMESPACE}.moved`,
  /** The session came in by `session import` of a file: who, from where, when (version 4). */
  imported: `${NAMESPACE}.imported`,
} as const;

/** A record kind's name: its protocol id's last word, and the key its payload is under. */
export type RecordKind = keyof typeof PROTOCOLS;
/** Every record kind, in the order a journal introduces them. */
export const RECORD_KINDS = Object.keys(PROTOCOLS) as RecordKind[];

/**
 * The record version that introduced each kind. A reader refuses a record of a kind it
 * does not know as written by a newer fisk-ai (kindOfProtocol, newerKindProblem): versions
 * only add kinds and optional fields, so an unknown kind is never a corrupt one.
 */
export const RECORD_KIND_SINCE: { readonly [K in RecordKind]: number } = {
  meta: 1,
  assistant: 1,
  tool_result: 1,
  user: 2,
  terminal: 1,
  compaction: 4,
  compaction_undo: 4,
  approval_request: 4,
  approval_decision: 4,
  resumed: 4,
  title: 4,
  origin: 4,
  moved: 4,
  imported: 4,
};

/** Run ids: validated before an id touches a path or a subject. */
export const RUN_ID_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;
/** The longest run id, in characters. */
export const RUN_ID_MAX_LENGTH = 128;

/** What every record's protocol looks like, whatever its kind. */
export const PROTOCOL_PATTERN = new RegExp(`^${NAMESPACE.replaceAll(".", "\\.")}\\.[a-z_]+$`);
/**
 * Why a run stops: it answered, it was suspended, a model call kept failing, the token
 * budget or the iteration cap was reached, or (version 4, after approval requests) it waits
 * for a person to decide calls of its pending batch.
 */
export const TERMINAL_REASONS = ["completed", "suspended", "error", "budget", "max_iterations", "awaiting_approval"] as const;
/** One of TERMINAL_REASONS. */
export type TerminalReason = (typeof TERMINAL_REASONS)[number];
/** The block types the code models; any other is kept and sent back as it came. */
export const MODELLED_TYPES = ["text", "thinking", "redacted_thinking", "tool_use", "server_tool_use", "image", "tool_result"];

/**
 * A block the code does not model, or a server tool's result (`*_tool_result`). Its type is
 * branded so that `isOtherBlock` narrows: what is not one is a modelled block.
 */
export type OtherBlock = {
  /** The block's type, as the provider named it. */
  type: string & {
    /** A compile-time brand only: no block carries it. */
    readonly otherBlock: unique symbol;
  };
  [field: string]: unknown;
};

const MODELLED = new Set(MODELLED_TYPES);
export function isOtherBlock<B extends { type: string }>(block: B | OtherBlock): block is OtherBlock {
  return !MODELLED.has(block.type);
}

/** What started a compaction: the size check before a model call, a person, or the provider refusing a request as too long. */
export const COMPACTION_TRIGGERS = ["auto", "manual", "overflow"] as const;
/** One of COMPACTION_TRIGGERS. */
export type CompactionTrigger = (typeof COMPACTION_TRIGGERS)[number];
/** What a waiting call asks of a person: to approve or deny a tool call, or to answer the model's question (`ask_user`). */
export const APPROVAL_KINDS = ["approval", "question"] as const;
/** One of APPROVAL_KINDS. */
export type ApprovalKind = (typeof APPROVAL_KINDS)[number];
/** A decision on a waiting call: `approve` and `deny` decide an approval, `answer` a question. */
export const DECISIONS = ["approve", "deny", "answer"] as const;
/** One of DECISIONS. */
export type Decision = (typeof DECISIONS)[number];
/** How a session came to hold another's records: `session fork`, `session import --name`, or `replay --fork` (a replay's departure). */
export const ORIGIN_KINDS = ["fork", "import", "replay"] as const;
/** One of ORIGIN_KINDS. */
export type OriginKind = (typeof ORIGIN_KINDS)[number];
/** The longest title, in characters: a title is a name to find a session by, not a note. */
export const TITLE_MAX_LENGTH = 200;
/**
 * The kinds that annotate a session without taking its conversation further: appended
 * after a terminal record, they leave the run as it stopped (a renamed completed session
 * stays completed, a suspended one compacted by hand or its compaction undone stays
 * suspended, a moved one keeps the terminal record it moved with).
 */
export const ANNOTATION_KINDS: readonly RecordKind[] = ["title", "origin", "moved", "imported", "compaction", "compaction_undo"];

/** The protocol id of each kind, and the payload key it carries, are the same word. */
export function kindOfProtocol(protocol: unknown): RecordKind | undefined {
  const kind = kindName(protocol);
  return kind !== undefined && (RECORD_KINDS as string[]).includes(kind) ? (kind as RecordKind) : undefined;
}

/**
 * Why a record of a kind this fisk-ai does not know is refused, or undefined for a known
 * kind or a protocol that is not fisk-ai's: a kind in fisk-ai's namespace that this
 * version does not know was written by a newer one (RECORD_KIND_SINCE).
 */
export function newerKindProblem(protocol: unknown): string | undefined {
  const kind = kindName(protocol);
  if (kind === undefined || (RECORD_KINDS as string[]).includes(kind)) return undefined;
  return `a ${kind} record, which a newer fisk-ai wrote: this one reads record versions up to ${NEWEST_READABLE_VERSION}; upgrade fisk-ai to use the session`;
}

function kindName(protocol: unknown): string | undefined {
  if (typeof protocol !== "string" || !PROTOCOL_PATTERN.test(protocol)) return undefined;
  return protocol.slice(NAMESPACE.length + 1);
}
