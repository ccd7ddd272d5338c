// Consistency tokens: `GH1.` + base64url(JSON {v:1, r:"<revision>", s:"<store id>"}).
// The version prefix lets a later format coexist; the store id makes a token of another
// deployment (or a wiped database) a typed error instead of a silently wrong revision.
import { StoreError } from "./errors.js";
import type { ConsistencyToken, Revision, TokenCodec } from "./types.js";

const PREFIX = "GH1.";

export function encodeToken(storeId: string, revision: Revision): ConsistencyToken {
  if (!Number.isSafeInteger(revision) || revision < 0) throw new StoreError("invalid-argument", `invalid revision ${revision}`);
  return PREFIX + Buffer.from(JSON.stringify({ v: 1, r: String(revision), s: storeId })).toString("base64url");
}

export function decodeToken(storeId: string, token: ConsistencyToken): Revision {
  if (typeof token !== "string" || !token.startsWith(PREFIX) || token.length > 512) {
    throw new StoreError("malformed-token", "The consistency token is malformed.", "token");
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(token.slice(PREFIX.length), "base64url").toString("utf8"));
  } catch {
    throw new StoreError("malformed-token", "The consistency token is malformed.", "token");
  }
  const b = body as { v?: unknown; r?: unknown; s?: unknown } | null;
  if (!b || typeof b !== "object" || b.v !== 1 || typeof b.r !== "string" || !/^\d{1,15}$/.test(b.r) || typeof b.s !== "string") {
    throw new StoreError("malformed-token", "The consistency token is malformed.", "token");
  }
  if (b.s !== storeId) throw new StoreError("foreign-token", "The consistency token was issued by another store.", "token");
  return Number(b.r);
}

export function tokenCodec(storeId: string): TokenCodec {
  return { encode: (r) => encodeToken(storeId, r), decode: (t) => decodeToken(storeId, t) };
}
