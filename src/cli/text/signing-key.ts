// What a user is told when fisk-ai made their signing key: once, where it is and what it is for.

/** The line printed when the first decision on this machine made the user's signing key. */
export function keyCreatedLine(path: string): string {
  return `fisk-ai: made a signing key for decisions in ${path} (only you can read it); approvals signed with it count only where it is trusted (docs/security.md)`;
}
