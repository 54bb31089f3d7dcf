// One exit code per outcome, so scripts can tell them apart. Listed in --help and the README.
import type { TerminalReason } from "../runstate/records.js";

export const EXIT = {
  completed: 0,
  error: 1,
  usage: 2,
  suspended: 3,
  budget: 4,
  max_iterations: 5,
  interrupted: 130,
} as const;

export function exitCodeFor(reason: TerminalReason): number {
  return EXIT[reason];
}

export const EXIT_CODES_HELP = `Exit codes:
  0    completed: the final answer is on stdout
  1    error: the run ended on an error (a model call that kept failing, ...)
  2    usage or configuration error: bad flags, config, credentials or session id; a refused resume
  3    suspended: resume with fisk-ai run --resume ID
  4    token budget reached (budget.max_tokens)
  5    iteration cap reached (budget.max_iterations)
  130  interrupted: a second Ctrl-C, or Ctrl-C without --checkpoint
`;
