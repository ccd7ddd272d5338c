import { ApiProblem, loadCredential, saveCredential, type Credential } from "./api.js";
import { field, h, render } from "./dom.js";
import { explorerScreen } from "./explorer.js";
import { parityScreen } from "./parity.js";
import { playgroundScreen } from "./playground.js";
import "./style.css";
import { treeScreen } from "./tree.js";

const main = document.getElementById("main")!;
const who = document.getElementById("who")!;

function signInForm(message: string): HTMLElement {
  const orgId = h("input", { autocomplete: "off", required: true, value: "12345" });
  const userId = h("input", { autocomplete: "username", required: true, value: "alice" });
  const admin = h("input", { type: "checkbox", checked: true });
  const token = h("textarea", { rows: 3, autocomplete: "off" });
  const form = h(
    "form",
    { class: "card signin", "aria-labelledby": "signin-h" },
    h("h1", { id: "signin-h" }, "Sign in"),
    h("p", { role: "alert" }, message),
    h(
      "fieldset",
      {},
      h("legend", {}, "Identity (local, or behind a trusted gateway)"),
      field("Organisation id", orgId),
      field("User id", userId),
      h("div", { class: "field inline" }, admin, h("label", { for: (admin.id = "signin-admin") }, "Org admin")),
      h("button", { type: "submit", name: "identity" }, "Use this identity"),
    ),
    h("fieldset", {}, h("legend", {}, "Or a bearer token"), field("Token", token), h("button", { type: "submit", name: "bearer" }, "Use this token")),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
    const credential: Credential =
      submitter?.name === "bearer" ? { kind: "bearer", token: token.value.trim() } : { kind: "identity", orgId: orgId.value.trim(), userId: userId.value.trim(), orgAdmin: admin.checked };
    saveCredential(credential);
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
    else if (path === "/tree") await treeScreen(main);
    else if (path === "/parity") await parityScreen(main);
    else await explorerScreen(main, query);
  } catch (error) {
    if (error instanceof ApiProblem && error.status === 401) render(main, signInForm(error.message));
    else if (error instanceof ApiProblem && error.status === 403)
      render(main, h("h1", {}, "Not permitted"), h("p", { role: "alert" }, "This screen is for organisation admins and service accounts."), signInForm("Sign in as someone else:"));
    else render(main, h("h1", {}, "Something went wrong"), h("p", { role: "alert", class: "error" }, error instanceof Error ? error.message : String(error)));
  }
}

window.addEventListener("hashchange", () => {
  void route().then(() => main.focus());
});
void route();
