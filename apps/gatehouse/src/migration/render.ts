import { LEVEL_LABELS, type ParityReport } from "@gatehouse/rbac";

/** Renders rows as a fixed-width text table (no dependency; output is for terminals and logs). */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

const MAX_ROWS = 200;

function capped(rows: string[][]): string[][] {
  return rows.length > MAX_ROWS ? [...rows.slice(0, MAX_ROWS), [`… ${rows.length - MAX_ROWS} more (see --json)`]] : rows;
}

/** The terminal form of a parity report. */
export function renderParityReport(report: ParityReport, verdict: ParityVerdict): string {
  const s = report.summary;
  const out: string[] = [];
  out.push(`Parity: ${s.tenants} tenant(s), ${s.principals} principal(s), ${s.grantsVerified} v1 grant(s) verified with ${s.checks} v2 check(s)`);
  if (report.lost.length > 0) {
    out.push("", `LOST GRANTS (${report.lost.length}): v1 allows, v2 denies`);
    out.push(
      renderTable(
        ["org", "user", "v1 permission", "v2 permission", "pattern", "checked at", "reason"],
        capped(report.lost.map((l) => [l.orgId, l.userId, l.permission, l.v2Permission, String(l.pattern), LEVEL_LABELS[l.checkedAt], l.reason])),
      ),
    );
  }
  if (report.overGrants.length > 0) {
    out.push("", `Accepted over-grants from higher-level bindings (${report.overGrants.length})`);
    out.push(
      renderTable(
        ["org", "user", "v1 permission", "v2 permission", "checked at", "also granted at"],
        capped(report.overGrants.map((o) => [o.orgId, o.userId, o.permission, o.v2Permission, LEVEL_LABELS[o.checkedAt], o.grantedAt.map((l) => LEVEL_LABELS[l]).join(", ")])),
      ),
    );
  }
  if (report.extraGrants.length > 0) {
    out.push("", `v2 grants a permission v1 did not (${report.extraGrants.length}): review`);
    out.push(
      renderTable(["org", "user", "v1 permission", "v2 permission", "checked at"], capped(report.extraGrants.map((e) => [e.orgId, e.userId, e.permission, e.v2Permission, LEVEL_LABELS[e.checkedAt]]))),
    );
  }
  if (report.unclassified.length > 0) {
    out.push("", `Not verified: held permissions without an asset type (${report.unclassified.length})`);
    out.push(renderTable(["org", "v1 permission"], capped(report.unclassified.map((u) => [u.orgId, u.permission]))));
  }
  const heldNotInSchema = report.notInSchema.filter((n) => n.heldGrants > 0);
  if (heldNotInSchema.length > 0) {
    out.push("", `Not verified: held v1 permissions whose v2 permission the schema does not define (${heldNotInSchema.length})`);
    out.push(renderTable(["v1 permission", "v2 permission", "object type", "v1 grants"], capped(heldNotInSchema.map((n) => [n.permission, n.v2Permission, n.objectType, String(n.heldGrants)]))));
  }
  const unmodelled = unmodelledApps(report.notInSchema.filter((n) => n.heldGrants === 0));
  if (unmodelled.length > 0) out.push("", `Not modelled by this schema, and held by nobody here (nothing to verify): ${unmodelled.join(", ")}`);
  out.push("", verdict.line);
  return out.join("\n");
}

const unmodelledApps = (rows: readonly { permission: string }[]): string[] => [...new Set(rows.map((r) => r.permission.split(":")[0] ?? r.permission))].sort();

export interface ParityVerdict {
  /** Whether the command succeeds: nothing lost, and every held grant verified (or that accepted). */
  readonly ok: boolean;
  readonly line: string;
  /** What to configure, when grants could not be verified. */
  readonly advice?: string;
}

/** The outcome of a parity report: a lost grant fails, and so does an unverified one unless accepted. */
export function parityVerdict(report: ParityReport, acceptUnverified: boolean): ParityVerdict {
  const unverified = report.summary.grantsUnverified;
  if (!report.ok) return { ok: false, line: `FAILED: ${report.lost.length} v1 grant(s) lost in v2` };
  if (unverified === 0) return { ok: true, line: "OK: no v1 grant is lost, every held v1 grant verified" };
  const apps = unmodelledApps([...report.unclassified, ...report.notInSchema.filter((n) => n.heldGrants > 0)]);
  const advice =
    `${unverified} held v1 grant(s) could not be verified (applications: ${apps.join(", ")}). ` +
    "Evaluate with a configuration that models them: --config-dir <role-configuration directory> (configs/<env> of an rbac-config checkout, " +
    "as GATEHOUSE_ROLE_CONFIG) or --schema <schema.zed>, and --asset-types <file> for permissions without an asset type; " +
    "or pass --accept-unverified to accept the gap.";
  if (acceptUnverified) return { ok: true, line: `OK: no verified v1 grant is lost; ${unverified} held v1 grant(s) NOT verified (accepted by --accept-unverified)` };
  return { ok: false, line: `NOT VERIFIED: no v1 grant found lost, but ${unverified} held v1 grant(s) could not be verified`, advice };
}
