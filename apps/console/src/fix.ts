// A fix for a denial, as the management API plans it (POST /access:explain/ → fixes): a preview of
// everything else it grants, the exact calls (copyable as curl and as a CLI command), apply, undo.
import { api, cliOf, curlOf, V2, type ApiCall } from "./api.js";
import { h, render } from "./dom.js";

interface NamedRef {
  type: string;
  id: string;
  name: string | null;
}

export interface Fix {
  permission: string;
  role: NamedRef | null;
  new_role: { name: string; description: string; permissions: string[] } | null;
  subject: NamedRef;
  resource: NamedRef;
  preview: { also_grants: string[]; also_members: string[]; also_members_total: number; also_reaches: string[]; also_reaches_total: number };
  steps: ApiCall[];
  undo_roles: string[];
}

/** Stands for the role the first step creates (the API's placeholder). */
const CREATED_ROLE = "{created_role_id}";
const nameOf = (ref: NamedRef): string => ref.name ?? ref.id;

/** Undoing a fix: the subject's roles on the resource as they were, then any role the fix created. */
interface Applied {
  undo: ApiCall[];
}

function more(names: string[], total: number): string {
  return `${names.join(", ")}${total > names.length ? ` and ${total - names.length} more` : ""}`;
}

/** What the fix grants, in words: the role, the subject, where, and everything else it reaches. */
export function fixSummary(fix: Fix): string {
  const role = fix.role ? `role ${nameOf(fix.role)}` : `a new custom role "${fix.new_role?.name}" holding exactly ${fix.new_role?.permissions.join(", ")}`;
  return `Bind ${role} to ${fix.subject.type} ${nameOf(fix.subject)} on ${fix.resource.type === "tenant" ? "the organisation" : nameOf(fix.resource)}.`;
}

function previewList(fix: Fix): HTMLElement {
  const p = fix.preview;
  return h(
    "ul",
    { class: "preview", "aria-label": "What else this grants" },
    h("li", {}, p.also_grants.length === 0 ? "No other permission: the role grants only what is missing." : `Also grants ${p.also_grants.length} other permission(s): ${p.also_grants.join(", ")}.`),
    fix.subject.type === "group"
      ? h(
          "li",
          {},
          p.also_members_total === 0 ? `No other member of ${nameOf(fix.subject)} gains it.` : `Every member of ${nameOf(fix.subject)} gains it: also ${more(p.also_members, p.also_members_total)}.`,
        )
      : null,
    h("li", {}, p.also_reaches_total === 0 ? "Reaches no other workspace." : `Inherited down to ${p.also_reaches_total} workspace(s): ${more(p.also_reaches, p.also_reaches_total)}.`),
  );
}

/** The calls, each as curl and as a CLI command, with a copy button. */
export function callsView(calls: ApiCall[]): HTMLElement {
  const block = (label: string, text: string) => {
    const pre = h("pre", { class: "code copyable", tabindex: 0, "aria-label": label }, text);
    const button = h("button", { type: "button", class: "secondary" }, `Copy ${label}`);
    button.addEventListener("click", () => {
      void navigator.clipboard?.writeText(text).then(
        () => (button.textContent = "Copied"),
        () => (button.textContent = "Select the text to copy"),
      );
    });
    return h("div", { class: "call" }, pre, button);
  };
  return h(
    "details",
    { class: "calls" },
    h("summary", {}, `The API calls (${calls.length})`),
    calls.flatMap((c, i) => [h("p", { class: "meta" }, `${i + 1}. ${c.method} ${c.path}`), block(`curl command ${i + 1}`, curlOf(c)), block(`CLI command ${i + 1}`, cliOf(c))]),
  );
}

/** Runs a fix's calls in order, the created role's id in place of the placeholder; returns how to undo it. */
export async function applyFix(fix: Fix): Promise<Applied> {
  let createdRole: string | null = null;
  for (const step of fix.steps) {
    const body: unknown = createdRole ? JSON.parse(JSON.stringify(step.body).replaceAll(CREATED_ROLE, createdRole)) : step.body;
    const answer: { uuid?: string; id?: string } = await api(step.method, step.path, body);
    if (step.path.endsWith("/roles/")) createdRole = answer.uuid ?? answer.id ?? null;
  }
  const binding = (fix.steps[fix.steps.length - 1]!.body as { requests: { resource: { type: string; id: string }; subject: { type: string; id: string } }[] }).requests[0]!;
  const q = new URLSearchParams({ resource_type: binding.resource.type, resource_id: binding.resource.id, subject_type: binding.subject.type, subject_id: binding.subject.id });
  const undo: ApiCall[] = [{ method: "PUT", path: `${V2}/role-bindings/by-subject/?${q.toString()}`, body: { roles: fix.undo_roles.map((id) => ({ id })) } }];
  if (createdRole) undo.push({ method: "POST", path: `${V2}/roles:batchDelete/`, body: { ids: [createdRole] } });
  return { undo };
}

export async function runCalls(calls: ApiCall[]): Promise<void> {
  for (const c of calls) await api(c.method, c.path, c.body);
}

/**
 * The fixes of one denial: preview, calls and Apply. `applied` gets the calls that undo them (the
 * caller shows `undoView` where it survives asking again).
 */
export function fixPanel(fixes: Fix[], applied: (undo: ApiCall[]) => Promise<void>): HTMLElement {
  const status = h("p", { role: "status", class: "status" });
  const apply = h("button", { type: "button" }, fixes.length > 1 ? `Apply these ${fixes.length} fixes` : "Apply this fix");
  apply.addEventListener("click", () => {
    apply.disabled = true;
    status.textContent = "Applying…";
    void (async () => {
      const undo: ApiCall[] = [];
      try {
        for (const fix of fixes) undo.unshift(...(await applyFix(fix)).undo);
      } catch (error) {
        // A fix applied before the failing one stays undoable.
        render(status, h("span", { class: "error", role: "alert" }, `Not applied: ${error instanceof Error ? error.message : String(error)}`));
        apply.disabled = false;
        if (undo.length > 0) await applied(undo);
        return;
      }
      status.textContent = "Applied.";
      await applied(undo);
    })();
  });
  return h(
    "section",
    { class: "fix", "aria-label": "Fix" },
    fixes.map((fix) => h("div", { class: "fix-item" }, h("p", { class: "fix-summary" }, fixSummary(fix)), previewList(fix), callsView(fix.steps))),
    h("div", { class: "buttons" }, apply),
    status,
  );
}

/** "Applied" with an Undo button and the undo's own calls; `undone` runs once they succeeded. */
export function undoView(message: string, undo: ApiCall[], undone: () => Promise<void>): HTMLElement {
  const status = h("span", { role: "status" }, message);
  const button = h("button", { type: "button", class: "secondary" }, "Undo");
  button.addEventListener("click", () => {
    button.disabled = true;
    void runCalls(undo).then(
      () => undone(),
      (error: unknown) => {
        button.disabled = false;
        status.textContent = `Undo failed: ${error instanceof Error ? error.message : String(error)}`;
      },
    );
  });
  return h("div", { class: "card applied" }, status, " ", button, callsView(undo));
}
