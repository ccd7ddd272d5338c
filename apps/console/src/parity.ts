import { api, V2, type ApiCall } from "./api.js";
import { h, liveRegion, render, svg } from "./dom.js";
import { fixPanel, undoView, type Fix } from "./fix.js";

interface Lost {
  userId: string;
  permission: string;
  heldVia: string[];
  v2Permission: string;
  pattern: number;
  checkedAt: string;
  checkObject: { type: string; id: string };
  boundAt: string[];
  reason: string;
  explain?: string;
}
interface Over {
  userId: string;
  permission: string;
  v2Permission: string;
  checkedAt: string;
  grantedAt: string[];
  reason: string;
}
interface ParityAnswer {
  revision: number;
  v1_assignments: number;
  truncated: boolean;
  report: {
    ok: boolean;
    summary: Record<string, number>;
    lost: Lost[];
    overGrants: Over[];
    unclassified: { permission: string }[];
    notInSchema: { permission: string; v2Permission: string; objectType: string }[];
  };
}

const LEVEL: Record<string, string> = { tenant: "Organization", root: "Root Workspace", default: "Default Workspace" };

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) out.set(key(row), [...(out.get(key(row)) ?? []), row]);
  return out;
}

/** The explain request of a lost grant: the user, the v1 permission, the object the application checks. */
function explainRequest(l: Lost) {
  return { subject: { type: "user", id: l.userId }, permission: l.permission, resource: l.checkObject.type === "rbac/tenant" ? { type: "tenant" } : { type: "workspace", id: l.checkObject.id } };
}

/** The explorer, opened on the object the application checks. */
function explorerLink(userId: string, permission: string, object: { type: string; id: string }): string {
  const resource = object.type === "rbac/tenant" ? "tenant:" : `workspace:${object.id}`;
  const q = new URLSearchParams({ subject: `user:${userId}`, permission, resource });
  return `#/explorer?${q.toString()}`;
}

/** Most lost grants one "fix all" asks about (one explain each). */
const FIX_ALL_MAX = 50;

/** The planned fixes of some lost grants, the same fix (same calls) once. */
async function fixesFor(rows: Lost[]): Promise<Fix[]> {
  const out = new Map<string, Fix>();
  for (const l of rows.slice(0, FIX_ALL_MAX)) {
    const answer = await api<{ allowed: boolean; fixes: Fix[] }>("POST", `${V2}/access:explain/`, explainRequest(l));
    for (const fix of answer.allowed ? [] : answer.fixes) out.set(JSON.stringify(fix.steps), fix);
  }
  return [...out.values()];
}

/** Guidance for a permission parity cannot check yet. */
function unverifiedView(report: ParityAnswer["report"]): HTMLElement[] {
  const byApp = groupBy(
    [...report.unclassified.map((u) => ({ ...u, why: "unclassified" as const })), ...report.notInSchema.map((u) => ({ ...u, why: "schema" as const }))],
    (u) => u.permission.split(":")[0] ?? "",
  );
  return [
    h(
      "p",
      {},
      "Parity cannot check these yet. ",
      h("strong", {}, "Unclassified"),
      ": no asset type gives the application a pattern, so where it checks is unknown — classify the application's resource in the asset-type catalogue (the CLI's ",
      h("code", {}, "advise"),
      " command picks the pattern from a few facts). ",
      h("strong", {}, "Not in the schema"),
      ": the v2 permission is missing from the role configuration's schema — add it to the application's KSL file and reload the configuration.",
    ),
    h(
      "ul",
      { class: "compact unverified" },
      [...byApp].map(([app, rows]) =>
        h(
          "li",
          {},
          h(
            "details",
            {},
            h("summary", {}, `${app} (${rows.length})`),
            h(
              "ul",
              {},
              rows.map((u) =>
                h(
                  "li",
                  {},
                  h("code", {}, u.permission),
                  u.why === "unclassified"
                    ? " — unclassified: add its asset type and pattern"
                    : ` — ${"v2Permission" in u ? u.v2Permission : ""} is not in the schema of ${"objectType" in u ? u.objectType : ""}: add it to the KSL`,
                ),
              ),
            ),
          ),
        ),
      ),
    ),
  ];
}

function chart(kept: number, lost: number, over: number): Element {
  const rows: [string, number, string][] = [
    ["Kept", kept, "bar-kept"],
    ["Lost", lost, "bar-lost"],
    ["Over-granted", over, "bar-over"],
  ];
  const max = Math.max(1, ...rows.map((r) => r[1]));
  const width = 480;
  const chartSvg = svg("svg", { viewBox: `0 0 ${width} ${rows.length * 34}`, role: "img", "aria-labelledby": "chart-title", class: "chart" });
  chartSvg.append(svg("title", { id: "chart-title" }, `Grants kept ${kept}, lost ${lost}, over-granted ${over}`));
  rows.forEach(([label, value, cls], i) => {
    const y = i * 34;
    chartSvg.append(
      svg("text", { x: 0, y: y + 20, class: "chart-label" }, label),
      svg("rect", { x: 120, y: y + 4, width: Math.max(2, ((width - 180) * value) / max), height: 22, class: cls }),
      svg("text", { x: 126 + ((width - 180) * value) / max, y: y + 20, class: "chart-value" }, String(value)),
    );
  });
  return chartSvg;
}

export async function parityScreen(main: HTMLElement, banner: HTMLElement | null = null): Promise<void> {
  const status = liveRegion();
  render(main, h("h1", {}, "Migration parity"), h("p", { class: "lede" }, "Every v1 grant of the organisation, checked in v2 where its application checks it."), banner, status);
  status.textContent = "Computing the parity report…";
  const answer = await api<ParityAnswer>("GET", `${V2}/access:parity/`);
  const { report } = answer;
  const s = report.summary;
  const kept = (s["grantsVerified"] ?? 0) - (s["lost"] ?? 0);
  status.textContent = report.ok ? "No v1 grant is lost." : s["lost"] === 1 ? "1 v1 grant is lost." : `${s["lost"]} v1 grants are lost.`;

  const byPermission = groupBy(report.lost, (l) => l.permission);
  // After a fix the report is computed again, with the undo on top.
  const applied = async (undo: ApiCall[]) => {
    const bar = h("div", {});
    render(
      bar,
      undoView("Fix applied: the report below is computed again.", undo, async () => {
        await parityScreen(main, h("p", { role: "status", class: "card" }, "Fix undone: the report below is computed again."));
      }),
    );
    await parityScreen(main, bar);
  };
  const fixArea = h("div", { id: "fix-all" });
  const fixAll = h("button", { type: "button" }, `Fix all ${report.lost.length} lost grants…`);
  fixAll.addEventListener("click", () => {
    fixAll.disabled = true;
    render(fixArea, h("p", { role: "status" }, "Planning the fixes…"));
    fixesFor(report.lost).then(
      (fixes) => render(fixArea, fixes.length > 0 ? fixPanel(fixes, applied) : h("p", {}, "No binding can restore these grants where their applications check.")),
      (error: unknown) => render(fixArea, h("p", { class: "error", role: "alert" }, error instanceof Error ? error.message : String(error))),
    );
  });
  const fixOne = (l: Lost, cell: HTMLElement, button: HTMLButtonElement) => {
    button.disabled = true;
    fixesFor([l]).then(
      (fixes) => cell.append(fixes.length > 0 ? fixPanel(fixes, applied) : h("p", {}, "No binding can restore it where the application checks.")),
      (error: unknown) => cell.append(h("p", { class: "error", role: "alert" }, error instanceof Error ? error.message : String(error))),
    );
  };

  main.append(
    h(
      "section",
      { class: "card" },
      h("h2", { id: "parity-verdict" }, report.ok ? "Parity kept: v2 grants every v1 grant" : "Parity broken: v2 denies some v1 grants"),
      h("p", { class: "meta" }, `Revision ${answer.revision} · ${answer.v1_assignments} v1 group-to-role assignments · ${s["principals"]} principals · ${s["grantsVerified"]} grants verified`),
      chart(kept, s["lost"] ?? 0, s["overGrants"] ?? 0),
      answer.truncated ? h("p", { class: "meta" }, "Lists are cut at 1000 rows.") : null,
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "lost-h" },
      h("h2", { id: "lost-h" }, `Lost grants (${report.lost.length})`),
      report.lost.length === 0 ? h("p", {}, "None: v2 grants every v1 grant.") : [h("div", { class: "buttons" }, fixAll), fixArea],
      [...byPermission].map(([permission, rows]) =>
        h(
          "div",
          { class: "group" },
          h("h3", {}, h("code", {}, permission), ` → ${rows[0]!.v2Permission} · checked at the ${LEVEL[rows[0]!.checkedAt] ?? rows[0]!.checkedAt} (Pattern ${rows[0]!.pattern})`),
          h(
            "table",
            {},
            h(
              "thead",
              {},
              h("tr", {}, h("th", { scope: "col" }, "User"), h("th", { scope: "col" }, "Held in v1 via"), h("th", { scope: "col" }, "Why v2 denies"), h("th", { scope: "col" }, "Explore")),
            ),
            h(
              "tbody",
              {},
              rows.map((l) =>
                h(
                  "tr",
                  {},
                  h("td", {}, l.userId),
                  h("td", {}, l.heldVia.join("; ")),
                  h("td", {}, l.reason, l.explain ? h("details", {}, h("summary", {}, "Evaluator"), h("small", {}, l.explain)) : null),
                  (() => {
                    const cell = h("td", {}, h("a", { href: explorerLink(l.userId, l.permission, l.checkObject) }, `Explain ${l.userId}`), " ");
                    const button = h("button", { type: "button", class: "secondary" }, `Fix ${l.userId}'s grant…`);
                    button.addEventListener("click", () => fixOne(l, cell, button));
                    cell.append(button);
                    return cell;
                  })(),
                ),
              ),
            ),
          ),
        ),
      ),
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "over-h" },
      h("h2", { id: "over-h" }, `Accepted over-grants (${report.overGrants.length})`),
      h("p", { class: "meta" }, "Granted at a higher level than the application checks: v2 allows more than needed there, as v1's organisation-wide grants did."),
      report.overGrants.length === 0
        ? h("p", {}, "None.")
        : h(
            "ul",
            { class: "compact" },
            [...groupBy(report.overGrants, (o) => `${o.permission} — ${o.reason}`)].map(([reason, rows]) =>
              h("li", {}, h("code", {}, reason.split(" — ")[0]!), ` — ${reason.split(" — ")[1]}: ${rows.map((o) => o.userId).join(", ")}`),
            ),
          ),
    ),
    h("section", { class: "card", "aria-labelledby": "unv-h" }, h("h2", { id: "unv-h" }, `Unverified permissions (${report.unclassified.length + report.notInSchema.length})`), unverifiedView(report)),
  );
}
