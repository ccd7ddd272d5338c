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
export function renderParityReport(report: ParityReport): string {
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
  if (report.notInSchema.length > 0) {
    out.push("", `Not verified: v2 permissions the schema does not define (${report.notInSchema.length})`);
    out.push(renderTable(["v1 permission", "v2 permission", "object type"], capped(report.notInSchema.map((n) => [n.permission, n.v2Permission, n.objectType]))));
  }
  out.push("", report.ok ? "OK: no v1 grant is lost" : `FAILED: ${report.lost.length} v1 grant(s) lost in v2`);
  return out.join("\n");
}
