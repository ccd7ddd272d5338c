// The pending role-configuration change: what reloading the files on disk would do, per
// permission (who loses, who gains, where), each loss linked to the explorer; the reload itself,
// which takes access away only with the token of the impact shown here. The management API
// computes everything (GET /role-config/impact, local host only); the page only shows it.
import { api, ApiProblem, loadCredential } from "./api.js";
import { h, liveRegion, render } from "./dom.js";

interface ImpactExample {
  orgId: string;
  userId: string;
  object: { type: string; id: string };
}
interface PermissionImpact {
  v2Permission: string;
  checkedAt: string;
  v1Permissions: string[];
  lost: number;
  gained: number;
  parityBroken: number;
  examples: { lost: ImpactExample[]; gained: ImpactExample[] };
}
interface PendingImpact {
  running: string;
  pending: string;
  changed: boolean;
  accept_token: string;
  impact: {
    summary: Record<string, number>;
    permissions: PermissionImpact[];
    seededRoles: { name: string; change: string; permissionsAdded: string[]; permissionsRemoved: string[] }[];
    unverifiable: { v2Permission: string; objectType: string }[];
  };
}

const LEVEL: Record<string, string> = { tenant: "Organization", root: "Root Workspace", default: "Default Workspace" };

/** The explorer on the object where the access changes (only the signed-in organisation's people). */
function explainLink(e: ImpactExample, permission: string): HTMLElement {
  const credential = loadCredential();
  const label = `${e.userId} on ${e.object.type === "rbac/tenant" ? "the organisation" : `workspace ${e.object.id}`}`;
  if (credential?.kind !== "identity" || credential.orgId !== e.orgId) return h("span", {}, `${label} (organisation ${e.orgId})`);
  const resource = e.object.type === "rbac/tenant" ? "tenant:" : `workspace:${e.object.id}`;
  const q = new URLSearchParams({ subject: `user:${e.userId}`, permission, resource });
  return h("a", { href: `#/explorer?${q.toString()}` }, `Explain ${label}`);
}

function permissionView(p: PermissionImpact): HTMLElement {
  const v1 = p.v1Permissions[0] ?? p.v2Permission;
  const list = (title: string, count: number, examples: ImpactExample[]) =>
    count === 0
      ? null
      : h(
          "div",
          {},
          h("h4", {}, `${title}: ${count}${examples.length < count ? ` (${examples.length} shown)` : ""}`),
          h(
            "ul",
            { class: "compact" },
            examples.map((e) => h("li", {}, explainLink(e, v1))),
          ),
        );
  return h(
    "div",
    { class: "group" },
    h("h3", {}, h("code", {}, p.v2Permission), ` · checked at the ${LEVEL[p.checkedAt] ?? p.checkedAt}`),
    h("p", { class: "meta" }, `v1: ${p.v1Permissions.join(", ")}${p.parityBroken > 0 ? ` · ${p.parityBroken} v1 grant(s) lose parity` : ""}`),
    list("Lose", p.lost, p.examples.lost),
    list("Gain", p.gained, p.examples.gained),
  );
}

export async function configChangeScreen(main: HTMLElement): Promise<void> {
  const status = liveRegion();
  render(
    main,
    h("h1", {}, "Configuration change"),
    h("p", { class: "lede" }, "What reloading the role configuration on disk would do: per permission, who loses and who gains access, in every organisation."),
    status,
  );
  status.textContent = "Computing the impact of the configuration on disk…";
  let answer: PendingImpact;
  try {
    answer = await api<PendingImpact>("GET", "/role-config/impact");
  } catch (error) {
    if (error instanceof ApiProblem && error.status === 403) {
      status.textContent = "";
      main.append(h("p", { role: "alert", class: "error" }, "The role configuration can be inspected and reloaded from the Gatehouse host only."));
      return;
    }
    throw error;
  }
  const s = answer.impact.summary;
  const blocking = (s["lost"] ?? 0) + (s["parityBroken"] ?? 0) > 0;
  status.textContent = answer.changed ? `${s["lost"]} grant(s) lost, ${s["gained"]} gained.` : "The files on disk are the configuration running.";
  const result = h("div", { id: "reload-result" });
  const reload = h("button", { type: "button", class: blocking ? "danger" : "" }, blocking ? "Accept this impact and reload" : "Reload");
  reload.addEventListener("click", () => {
    reload.disabled = true;
    api<{ hash: string; changed: boolean }>("POST", `/role-config/reload${blocking ? `?accept=${answer.accept_token}` : ""}`).then(
      (r) => render(result, h("p", { role: "status" }, r.changed ? `Reloaded: configuration ${r.hash.slice(0, 12)} is active.` : "Nothing to reload.")),
      (error: unknown) => render(result, h("p", { class: "error", role: "alert" }, error instanceof Error ? error.message : String(error))),
    );
  });
  main.append(
    h(
      "section",
      { class: "card", "aria-labelledby": "change-h" },
      h("h2", { id: "change-h" }, answer.changed ? (blocking ? "This change takes access away" : "This change takes no access away") : "No pending change"),
      h("p", { class: "meta" }, `Running ${answer.running.slice(0, 12)} · on disk ${answer.pending.slice(0, 12)}`),
      h(
        "ul",
        { class: "compact" },
        h("li", {}, `${s["organisations"]} organisation(s), ${s["principals"]} principal(s); ${s["permissionsEvaluated"]} of ${s["permissions"]} permissions re-evaluated`),
        h("li", {}, `Access lost: ${s["lost"]} · gained: ${s["gained"]} · v1 parity broken: ${s["parityBroken"]}`),
        h("li", {}, `Permissions no longer defined: ${s["unverifiable"]} · seeded roles changed: ${s["seededRolesChanged"]}`),
      ),
      answer.changed ? h("div", { class: "buttons" }, reload) : null,
      result,
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "perm-h" },
      h("h2", { id: "perm-h" }, `Per permission (${answer.impact.permissions.length})`),
      answer.impact.permissions.length === 0 ? h("p", {}, "Nobody gains or loses anything.") : answer.impact.permissions.map(permissionView),
    ),
    h(
      "section",
      { class: "card", "aria-labelledby": "seeded-h" },
      h("h2", { id: "seeded-h" }, `Seeded roles changed (${answer.impact.seededRoles.length})`),
      answer.impact.seededRoles.length === 0
        ? h("p", {}, "None.")
        : h(
            "ul",
            { class: "compact" },
            answer.impact.seededRoles.map((r) =>
              h(
                "li",
                {},
                h("strong", {}, r.name),
                ` ${r.change}`,
                r.permissionsAdded.length > 0 ? ` · adds ${r.permissionsAdded.join(", ")}` : "",
                r.permissionsRemoved.length > 0 ? ` · removes ${r.permissionsRemoved.join(", ")}` : "",
              ),
            ),
          ),
    ),
  );
}
