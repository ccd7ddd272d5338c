import { EngineError } from "../errors.js";

// Continuation tokens name the last id already sent ("resume strictly after it"). Because the
// next page starts after that id in sorted order, no page can repeat, even when writes land
// between pages. The prefix versions the format.
const PREFIX = "c1.";

export function encodeCursor(lastId: string): string {
  return PREFIX + Buffer.from(lastId, "utf8").toString("base64url");
}

export function decodeCursor(token: string): string {
  if (!token.startsWith(PREFIX) || token.length === PREFIX.length) {
    throw new EngineError("invalid-continuation-token", "The continuation token is malformed.");
  }
  const body = token.slice(PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) throw new EngineError("invalid-continuation-token", "The continuation token is malformed.");
  return Buffer.from(body, "base64url").toString("utf8");
}

/** Index of the first id strictly greater than `after` in an ascending (code-unit) sorted array. */
export function firstIndexAfter(sortedIds: readonly string[], after: string): number {
  let low = 0;
  let high = sortedIds.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sortedIds[mid] as string) <= after) low = mid + 1;
    else high = mid;
  }
  return low;
}
