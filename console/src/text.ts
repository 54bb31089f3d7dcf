// Statuses, ages, money and tokens as the CLI writes them, for a reader at a glance.

export function ageText(iso: string | undefined, now = Date.now()): string {
  if (iso === undefined) return "";
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

export function dollarsText(dollars: number | undefined): string {
  if (dollars === undefined) return "";
  return dollars < 0.01 && dollars > 0 ? "<$0.01" : `$${dollars.toFixed(2)}`;
}

export function tokensText(tokens: number | undefined): string {
  if (tokens === undefined) return "";
  return tokens >= 1000 ? `${(tokens / 1000).toFixed(1)}k` : String(tokens);
}
