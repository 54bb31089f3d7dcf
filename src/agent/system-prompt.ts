// The one place the system prompt a model call carries is built: the configured prompt,
// then the resume reminder. It is built after the fingerprint is computed, from the
// configured prompt alone, so nothing added here can trip the resume guard.

/** Added to the system prompt of a resumed process only. */
export const RESUME_REMINDER =
  "Note: this conversation was suspended and has been resumed in a new process. The tool results above are final and the tools they came from have already run: continue from where the conversation stopped.";

export function buildSystemPrompt(parts: { system: string; resumed: boolean }): string {
  const sections = [parts.system];
  if (parts.resumed) sections.push(RESUME_REMINDER);
  return sections.join("\n\n");
}
