import { ApiProblem, loadCredential, organisationExists, saveCredential, type Credential } from "./api.js";
import { configChangeScreen } from "./config-change.js";
import { apiField, field, h, onSubmit, render } from "./dom.js";
import { explorerScreen } from "./explorer.js";
import { groupsScreen, rolesScreen } from "./manage.js";
import { selfServiceScreen } from "./me.js";
import { parityScreen } from "./parity.js";
import { playgroundScreen } from "./playground.js";
import "./style.css";
import { treeScreen } from "./tree.js";

const main = document.getElementById("main")!;
const who = document.getElementById("who")!;

function signInForm(message: string): HTMLElement {
  // Nothing pre-filled and nobody an administrator unless they say so.
  const orgId = h("input", { autocomplete: "off", required: true });
  const userId = h("input", { autocomplete: "username", required: true });
  const admin = h("input", { type: "checkbox" });
  const createOrg = h("input", { type: "checkbox" });
  const createField = h("div", { class: "field inline", hidden: true }, createOrg, h("label", { for: (createOrg.id = "signin-create-org") }, "Create this new, empty organisation"));
  const token = h("textarea", { rows: 3, autocomplete: "off" });
  const errors = h("div", {});
  const form = h(
    "form",
    { class: "card signin", "aria-labelledby": "signin-h" },
    h("h1", { id: "signin-h" }, "Sign in"),
    h("p", { role: "alert" }, message),
    h(
      "fieldset",
      {},
      h("legend", {}, "Identity (local, or behind a trusted gateway)"),
      apiField("Organisation id", orgId, "org_id"),
      createField,
      field("User id", userId),
      h("div", { class: "field inline" }, admin, h("label", { for: (admin.id = "signin-admin") }, "Org admin")),
      h("button", { type: "submit", name: "identity" }, "Use this identity"),
    ),
    h("fieldset", {}, h("legend", {}, "Or a bearer token"), field("Token", token), h("button", { type: "submit", name: "bearer" }, "Use this token")),
    errors,
  );
  onSubmit(form, errors, async (submitter) => {
    if (submitter === "bearer") {
      saveCredential({ kind: "bearer", token: token.value.trim() });
    } else {
      const org = orgId.value.trim();
      // The API creates an organisation on its first request: a mistyped id must not become one silently.
      if (!createOrg.checked && !(await organisationExists(org).catch(() => true))) {
        createField.hidden = false;
        throw new ApiProblem(404, "", [{ field: "org_id", message: `No organisation has the id '${org.slice(0, 64)}'. Check it, or tick the box below to create it.` }]);
      }
      const credential: Credential = { kind: "identity", orgId: org, userId: userId.value.trim(), orgAdmin: admin.checked };
      saveCredential(credential);
    }
    void route();
  });
  return form;
}

function showWho(): void {
  const credential = loadCredential();
  render(
    who,
    credential ? (credential.kind === "identity" ? `${credential.userId} · org ${credential.orgId}` : "bearer token") : "",
    credential ? h("button", { type: "button", class: "link", onclick: () => (saveCredential(null), void route()) }, "Sign out") : null,
  );
}

async function route(): Promise<void> {
  showWho();
  const [path, search] = (location.hash.replace(/^#/, "") || "/explorer").split("?");
  const query = Object.fromEntries(new URLSearchParams(search ?? ""));
  for (const link of document.querySelectorAll<HTMLAnchorElement>("#nav a")) {
    if (link.getAttribute("href") === `#${path}`) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  try {
    if (path === "/playground") playgroundScreen(main);
    else if (path === "/tree") await treeScreen(main, query);
    else if (path === "/groups") await groupsScreen(main, query);
    else if (path === "/roles") await rolesScreen(main);
    else if (path === "/parity") await parityScreen(main);
    else if (path === "/me") await selfServiceScreen(main);
    else if (path === "/config-change") await configChangeScreen(main);
    else await explorerScreen(main, query);
  } catch (error) {
    if (error instanceof ApiProblem && error.status === 401) render(main, signInForm(error.message));
    else if (error instanceof ApiProblem && error.status === 403)
      render(
        main,
        h("h1", {}, "Not permitted"),
        h("p", { role: "alert" }, "This screen is for organisation admins and service accounts."),
        h("p", {}, h("a", { href: "#/me" }, "Ask why you can't do something"), " — about your own access."),
        signInForm("Sign in as someone else:"),
      );
    else render(main, h("h1", {}, "Something went wrong"), h("p", { role: "alert", class: "error" }, error instanceof Error ? error.message : String(error)));
  }
}

window.addEventListener("hashchange", () => {
  void route().then(() => main.focus());
});
void route();
