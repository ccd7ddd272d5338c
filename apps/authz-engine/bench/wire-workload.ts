// The calls the wire benchmark (wire.ts) makes, shared by its server and client processes: one
// allowed Check, the same as CheckForUpdate, and a CheckBulk of 50 distinct allowed hosts.
import { Allowed, type CheckBulkRequest, type CheckBulkResponse, type CheckResponse, KesselInventoryServiceService } from "@gatehouse/proto";
import { BENCH_CHECK } from "./fixture.js";

export const BULK_SIZE = 50;
export const RPCS = ["check", "checkForUpdate", "checkBulk"] as const;
export type Rpc = (typeof RPCS)[number];

/** The wire definition of each benchmarked RPC (path and generated serializers). */
export const definitionOf = (rpc: Rpc) => KesselInventoryServiceService[rpc];

const bulk: CheckBulkRequest = {
  items: Array.from({ length: BULK_SIZE }, (_, i) => ({ ...BENCH_CHECK, object: { ...BENCH_CHECK.object!, resourceId: `host-${100 + i}` } })),
};

export const REQUESTS: Record<Rpc, object> = { check: BENCH_CHECK, checkForUpdate: BENCH_CHECK, checkBulk: bulk };

/**
 * What the floor servers answer: a constant response of the engine's shape (a token as long as
 * the engine's), so the floor pays the same response size but no evaluation.
 */
const token = "x".repeat(24);
const single: CheckResponse = { allowed: Allowed.ALLOWED_TRUE, consistencyToken: { token } };
const bulkAnswer: CheckBulkResponse = {
  pairs: bulk.items.map((request) => ({ request, item: { allowed: Allowed.ALLOWED_TRUE } })),
  consistencyToken: { token },
};
export const FLOOR_RESPONSES: Record<Rpc, object> = { check: single, checkForUpdate: single, checkBulk: bulkAnswer };
