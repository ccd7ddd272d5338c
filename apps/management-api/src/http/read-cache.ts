import type { NextFunction, Request, RequestHandler, Response } from "express";
import { LRUCache } from "lru-cache";
import { contextOf } from "./identity.js";

export interface ReadCacheOptions {
  /** The revision every cached answer is keyed by (the authorization graph's applied revision). */
  revision: () => number;
  maxBytes?: number;
  maxEntryBytes?: number;
}

/**
 * Caches successful GET answers per caller, URL and revision. Every write creates a new revision,
 * so an entry is never invalidated: a new revision simply means new keys (old ones age out of
 * the LRU). Answers are as fresh as the authorization graph, which includes every write made
 * through this instance before its response was sent.
 */
export function readCache(options: ReadCacheOptions): RequestHandler {
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const maxEntryBytes = options.maxEntryBytes ?? 1024 * 1024;
  // lru-cache bounded by bytes (key + body); an answer larger than maxEntryBytes is not kept.
  const entries = new LRUCache<string, string>({
    maxSize: maxBytes,
    maxEntrySize: maxEntryBytes,
    sizeCalculation: (body, key) => key.length + body.length,
  });
  let cachedRevision = -1;

  const remember = (key: string, body: string) => {
    if (key.length + body.length <= maxEntryBytes) entries.set(key, body);
  };

  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== "GET") {
      next();
      return;
    }
    const revision = options.revision();
    if (revision !== cachedRevision) {
      // Entries of older revisions can never be asked for again.
      entries.clear();
      cachedRevision = revision;
    }
    const { caller, minRevision } = contextOf(res);
    // Behind what this request must see (its principal changed, maybe on another replica): no
    // cached answer, the route catches the graph up first.
    // An associate acting through cross-account requests holds what their dates allow at this
    // moment, which no revision marks: never cached (nor served another caller's entry).
    if (revision < minRevision || caller.crossAccess) {
      next();
      return;
    }
    const key = `${caller.orgId}\u0000${caller.userId}\u0000${caller.isOrgAdmin ? 1 : 0}${caller.isSystemUser ? 1 : 0}\u0000${req.originalUrl}`;
    const hit = entries.get(key);
    if (hit !== undefined) {
      res.status(200).type("application/json").send(hit);
      return;
    }
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      if (res.statusCode === 200 && options.revision() === revision && cachedRevision === revision) {
        const text = JSON.stringify(body);
        remember(key, text);
        return res.type("application/json").send(text);
      }
      return json(body);
    };
    next();
  };
}
