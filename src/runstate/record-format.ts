// What the journal's records look like without their schemas (SPEC section 2): the
// protocol ids, versions and limits both the zod schemas (record-schemas.ts) and the
// code that never loads zod rely on. Identifiers and field names are the ones the Go
// implementation writes in its version 2 journals, so a journal moves between the two
// unchanged.

/** The record format version stamped in `meta.version`. */
export const RECORD_VERSION = 2;
/** The newest version read: 3 is the Go implementation's provider-neutral journal (record-v3.ts). */
export const NEWEST_READABLE_VERSION = 3;

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
} as const;

/** A record kind's name: its protocol id's last word, and the key its payload is under. */
export type RecordKind = keyof typeof PROTOCOLS;
/** Every record kind, in the order a journal introduces them. */
export const RECORD_KINDS = Object.keys(PROTOCOLS) as RecordKind[];

/** Run ids: validated before an id touches a path or a subject. */
export const RUN_ID_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;
/** The longest run id, in characters. */
export const RUN_ID_MAX_LENGTH = 128;

/** What every record's protocol looks like, whatever its kind. */
export const PROTOCOL_PATTERN = new RegExp(`^${NAMESPACE.replaceAll(".", "\\.")}\\.[a-z_]+$`);
/** Why a run stops: it answered, it was suspended, a model call kept failing, the token budget or the iteration cap was reached. */
export const TERMINAL_REASONS = ["completed", "suspended", "error", "budget", "max_iterations"] as const;
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

/** The protocol id of each kind, and the payload key it carries, are the same word. */
export function kindOfProtocol(protocol: unknown): RecordKind | undefined {
  if (typeof protocol !== "string" || !protocol.startsWith(`${NAMESPACE}.`)) return undefined;
  const kind = protocol.slice(NAMESPACE.length + 1);
  return (RECORD_KINDS as string[]).includes(kind) ? (kind as RecordKind) : undefined;
}
