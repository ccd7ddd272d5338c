// Parity kept current while v1 is edited: after every v1 write the organisation's lost-grant count
// (its parity report's `summary.lost`: each v1 grant checked in v2 where its application checks,
// computed alone by `lostGrantCount`) is recomputed at the write's revision and published as
// metrics, so a v1 write that loses a grant in v2 is seen at once (also in the write's
// `x-gatehouse-parity-lost` header).
import { defaultAssetTypes } from "@gatehouse/rbac";
import type { Written } from "@gatehouse/store";
import type { Metrics } from "@gatehouse/telemetry";
import { LRUCache } from "lru-cache";
import { lostGrantCount } from "./parity.js";
import type { RequestContext } from "../domain/context.js";
import type { Services, V1WriteObserver } from "./services.js";

export const PARITY_LOST_HEADER = "x-gatehouse-parity-lost";

/** Organisations whose last count is kept for the gauges (bounded; the oldest is forgotten). */
const TRACKED_ORGS = 10_000;

export interface ParityUpkeep {
  /** The observer of v1 writes over these services: lost grants after the write (undefined when parity could not be computed). */
  observe(services: Services): V1WriteObserver;
  /** Last known lost-grant count of an organisation (undefined: not computed since start). */
  lostOf(orgId: string): number | undefined;
}

export function createParityUpkeep(metrics: Metrics): ParityUpkeep {
  const catalog = defaultAssetTypes();
  const lostByOrg = new LRUCache<string, number>({ max: TRACKED_ORGS });
  const lostGrants = metrics.gauge("parity_lost_grants", "v1 grants not granted in v2, summed over the organisations written through v1 since start (last report of each).");
  const losingOrgs = metrics.gauge("parity_organisations_losing_grants", "Organisations whose last parity report (after a v1 write) shows a lost grant.");
  const writes = metrics.counter("v1_writes_total", "v1 writes, by whether the organisation's parity report afterwards shows a lost grant.", ["parity"]);
  const seconds = metrics.histogram("parity_upkeep_seconds", "Time to recompute an organisation's lost-grant count after a v1 write.");
  const publish = () => {
    let sum = 0;
    let losing = 0;
    for (const n of lostByOrg.values()) {
      sum += n;
      if (n > 0) losing++;
    }
    lostGrants.set(sum);
    losingOrgs.set(losing);
  };
  const afterV1Write = async (services: Services, ctx: RequestContext, written: Written<unknown>): Promise<number | undefined> => {
    const stop = seconds.startTimer();
    try {
      const lost = await lostGrantCount(services, { ...ctx, minRevision: written.revision }, catalog);
      lostByOrg.set(ctx.tenant.orgId, lost);
      publish();
      writes.inc({ parity: lost > 0 ? "lost" : "kept" });
      return lost;
    } catch {
      // Parity is a report: an organisation too large for it here, or a failure, never fails the write.
      writes.inc({ parity: "unknown" });
      return undefined;
    } finally {
      stop();
    }
  };
  return {
    observe: (services) => ({ afterV1Write: (ctx, written) => afterV1Write(services, ctx, written) }),
    lostOf: (orgId) => lostByOrg.get(orgId),
  };
}
