/** Ids that must never reach a path or a subject. */
export const HOSTILE_IDS = ["../x", "a/b", ".", "..", "", "x".repeat(129), "caf\u00e9", "a\u0000b", "-rf", "_x", "a b", "a\nb", "a.json"];
