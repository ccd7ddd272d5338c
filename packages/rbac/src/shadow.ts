/** Outcome of comparing a v1 decision with the v2 check of the same request. */
export type ShadowOutcome = "agree-allow" | "agree-deny" | "v1-only" | "v2-only";

/** What the request was about (labels for metrics and logs; keep cardinality low in labels). */
export interface ShadowContext {
  readonly orgId?: string;
  readonly userId?: string;
  /** The v1 permission, e.g. `patch:system:read`. */
  readonly permission: string;
  /** The v2 relation checked. */
  readonly relation?: string;
  readonly pattern?: number;
  readonly object?: { readonly type: string; readonly id: string };
}

export interface ShadowResult {
  readonly outcome: ShadowOutcome;
  readonly agree: boolean;
  readonly v1Allowed: boolean;
  readonly v2Allowed: boolean;
  /**
   * "lost-grant" when v1 allowed and v2 denies (the silent failure of a mis-levelled binding),
   * "over-grant" when v2 allows what v1 denied.
   */
  readonly severity?: "lost-grant" | "over-grant";
  readonly message?: string;
  readonly context: ShadowContext;
}

/** Pure comparison of one pair of decisions. */
export function compareDecisions(v1Allowed: boolean, v2Allowed: boolean, context: ShadowContext): ShadowResult {
  if (v1Allowed === v2Allowed) {
    return { outcome: v1Allowed ? "agree-allow" : "agree-deny", agree: true, v1Allowed, v2Allowed, context };
  }
  const where = context.object ? ` at ${context.object.type}:${context.object.id}` : "";
  const what = `${context.permission}${context.relation ? ` (v2 ${context.relation})` : ""}`;
  return v1Allowed
    ? {
        outcome: "v1-only",
        agree: false,
        v1Allowed,
        v2Allowed,
        severity: "lost-grant",
        message: `v1 allows ${what} but v2 denies${where}: check the binding level against the check level`,
        context,
      }
    : {
        outcome: "v2-only",
        agree: false,
        v1Allowed,
        v2Allowed,
        severity: "over-grant",
        message: `v2 allows ${what}${where} but v1 denies`,
        context,
      };
}

/** Where shadow results go: metrics and logs of the host application. */
export interface ShadowSink {
  /** Every comparison (e.g. increment a counter labelled by outcome). */
  onComparison?(result: ShadowResult): void;
  /** Disagreements only (e.g. a warning log line). */
  onDisagreement(result: ShadowResult): void;
}

export type ShadowCounters = Readonly<Record<ShadowOutcome, number>>;

export interface ShadowRecorder {
  /** Compares, counts and forwards disagreements; returns the result. Sink errors never propagate. */
  record(v1Allowed: boolean, v2Allowed: boolean, context: ShadowContext): ShadowResult;
  counters(): ShadowCounters;
}

/** A shadow recorder: safe for production paths (the sink can never break the request). */
export function createShadowRecorder(sink: ShadowSink): ShadowRecorder {
  const counts: Record<ShadowOutcome, number> = { "agree-allow": 0, "agree-deny": 0, "v1-only": 0, "v2-only": 0 };
  const safely = (fn: () => void) => {
    try {
      fn();
    } catch {
      // Shadow mode observes; a failing metrics or log sink must not change the request outcome.
    }
  };
  return {
    record(v1Allowed, v2Allowed, context) {
      const result = compareDecisions(v1Allowed, v2Allowed, context);
      counts[result.outcome]++;
      safely(() => sink.onComparison?.(result));
      if (!result.agree) safely(() => sink.onDisagreement(result));
      return result;
    },
    counters: () => ({ ...counts }),
  };
}
