// One exit code per outcome, so scripts can tell them apart. Listed in --help and the README.
import type { RunStateErrorCode } from "../runstate/errors.js";
import type { TerminalReason } from "../runstate/records/records.js";

export const EXIT = {
  completed: 0,
  error: 1,
  usage: 2,
  suspended: 3,
  budget: 4,
  max_iterations: 5,
  notFound: 6,
  locked: 7,
  corrupt: 8,
  exists: 9,
  awaiting_approval: 10,
  decided: 11,
  ambiguous: 12,
  moved: 13,
  signIn: 14,
  childInUse: 15,
  unknownBackend: 16,
  departs: 17,
  interrupted: 130,
} as const;

export function exitCodeFor(reason: TerminalReason): number {
  return EXIT[reason];
}

/** What a store error means for the operator's command line. */
export function exitCodeForStoreError(code: RunStateErrorCode): number {
  switch (code) {
    case "ERR_NOT_FOUND":
      return EXIT.notFound;
    case "ERR_LOCKED":
      return EXIT.locked;
    case "ERR_EXISTS":
      return EXIT.exists;
    case "ERR_CORRUPT":
    case "ERR_VERSION":
    case "ERR_EMPTY":
    case "ERR_NO_META":
    case "ERR_SYMLINK":
      return EXIT.corrupt;
    case "ERR_MOVED":
      return EXIT.moved;
    case "ERR_INVALID_ID":
    case "ERR_INVALID_RECORD":
    case "ERR_STORE_CONFIG":
    case "ERR_NO_STREAM":
    case "ERR_NO_SEQ":
      return EXIT.usage;
    default:
      return EXIT.error;
  }
}

/** What a command's help says of exit codes: the table is in the top-level help alone, not repeated in every command's. */
export const EXIT_CODES_POINTER = "Exit codes: 'fisk-ai --help' lists them (0 done, 2 usage or configuration error, 3 suspended, 10 awaiting approval).";

export const EXIT_CODES_HELP = `Exit codes:
  0    completed (run), or the command succeeded
  1    error: the run ended on an error, or a command partly failed
  2    usage or configuration error: bad flags, config, credentials or session id; a refused resume
  3    suspended: resume with fisk-ai run --resume ID
  4    token budget reached (budget.max_tokens)
  5    iteration cap reached (budget.max_iterations)
  6    no such session
  7    the session is in use by another process
  8    the journal is corrupt, or of a newer version (fisk-ai session verify ID shows where)
  9    a session with that id already exists, or a file init would write
  10   awaiting approval: calls wait for a decision (fisk-ai session pending)
  11   the call is already decided: another decision was journaled first
  12   a title names more than one session: give its id
  13   the session was moved to another store: resume it there
  14   an MCP server needs a sign-in no one could give here: fisk-ai mcp login NAME, then run again
  15   a child session its parent can still resume into: remove the parent, or the child with --force
  16   the store URL's scheme names no backend (--store, session mv --to, session.url)
  17   replay: a replayed session departs from its recording (fisk-ai replay)
  130  interrupted: a second Ctrl-C, or Ctrl-C without --checkpoint; Ctrl-C in the session viewer or the resume picker
`;
