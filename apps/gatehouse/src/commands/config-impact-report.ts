// The readable (Markdown) form of a configuration impact, for a terminal or a pull request comment.
import { LEVEL_LABELS, type ConfigImpact, type ImpactExample, type PermissionImpact } from "@gatehouse/rbac";

const cell = (s: string) => s.replace(/\|/g, "\\|");
const table = (headers: string[], rows: string[][]) => [`| ${headers.join(" | ")} |`, `|${headers.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.map(cell).join(" | ")} |`)].join("\n");
const examples = (list: readonly ImpactExample[]) => list.map((e) => `${e.orgId}/${e.userId} on ${e.object.type}:${e.object.id}`).join("; ");

export interface ImpactReportContext {
  readonly from: string;
  readonly to: string;
  readonly digest: string;
  /** Permissions with lost access or broken parity nobody accepted. */
  readonly blocking: readonly PermissionImpact[];
}

export function renderImpactMarkdown(impact: ConfigImpact, ctx: ImpactReportContext): string {
  const s = impact.summary;
  const out: string[] = [`# Role-configuration impact: ${ctx.from} → ${ctx.to}`, ""];
  out.push(
    `${s.organisations} organisation(s), ${s.principals} principal(s); ${s.permissionsEvaluated} of ${s.permissions} checked permission(s) re-evaluated (the others cannot change), ${s.checks} check(s).`,
    "",
    `- access lost: **${s.lost}**`,
    `- access gained: **${s.gained}**`,
    `- v1 grants whose v2 parity breaks: **${s.parityBroken}** (restored: ${s.parityRestored})`,
    `- permissions that become unverifiable: **${s.unverifiable}**`,
    `- seeded roles changed: **${s.seededRolesChanged}**`,
    `- impact digest: \`${ctx.digest}\``,
  );
  if (impact.permissions.length > 0) {
    out.push("", "## Per permission", "");
    out.push(
      table(
        ["v2 permission", "checked at", "v1 permissions", "lost", "gained", "parity broken", "examples lost", "examples gained"],
        impact.permissions.map((p) => [
          p.v2Permission,
          LEVEL_LABELS[p.checkedAt],
          p.v1Permissions.join(", "),
          String(p.lost),
          String(p.gained),
          String(p.parityBroken),
          examples(p.examples.lost),
          examples(p.examples.gained),
        ]),
      ),
    );
  }
  if (impact.organisations.length > 0) {
    out.push("", "## Per organisation", "");
    out.push(
      table(
        ["organisation", "lost", "gained", "parity broken", "examples lost"],
        impact.organisations.map((o) => [o.orgId, String(o.lost), String(o.gained), String(o.parityBroken), o.examples.map((e) => `${e.userId}: ${e.v2Permission} on ${e.object.id}`).join("; ")]),
      ),
    );
  }
  if (impact.unverifiable.length > 0) {
    out.push("", "## Unverifiable after the change (the schema no longer defines them)", "");
    out.push(
      table(
        ["v2 permission", "on", "v1 permissions", "v1 grants held"],
        impact.unverifiable.map((u) => [u.v2Permission, u.objectType, u.v1Permissions.join(", "), String(u.heldGrants)]),
      ),
    );
  }
  if (impact.seededRoles.length > 0) {
    out.push("", "## Seeded roles", "");
    out.push(
      table(
        ["role", "change", "permissions added", "permissions removed", "flags", "note"],
        impact.seededRoles.map((r) => [
          r.name,
          r.change,
          r.permissionsAdded.join(", "),
          r.permissionsRemoved.join(", "),
          r.flagsChanged.join(", "),
          r.versionNotRaised ? "version not raised: a store keeps its copy" : "",
        ]),
      ),
    );
  }
  out.push("");
  if (ctx.blocking.length === 0) out.push("Verdict: **nothing lost that was not accepted**.");
  else {
    out.push(`Verdict: **blocked** by ${ctx.blocking.length} permission(s) losing access or parity: ${ctx.blocking.map((p) => p.v2Permission).join(", ")}.`);
    out.push(`Accept them by name (\`--accept <v2 or v1 permission>\`) or all of this impact with \`--accept ${ctx.digest}\`.`);
  }
  return `${out.join("\n")}\n`;
}
