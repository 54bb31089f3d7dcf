// What tells a store URL from a directory, apart from the parser so that the CLI's error
// advice can tell them apart without loading the registry.
const URL_FORM = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;

/** The scheme `text` starts with (`SCHEME://`), as typed; undefined for a directory. */
export function schemeOf(text: string): string | undefined {
  return URL_FORM.exec(text)?.[1];
}

/** Whether `text` names a store by URL (`SCHEME://...`) rather than by a directory. */
export function isStoreUrl(text: string): boolean {
  return schemeOf(text) !== undefined;
}
