// A few lines of DOM building instead of a UI library: the screens are forms and lists, and the
// bundle stays the evaluator and KSL compiler plus this code.
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "class") el.className = String(value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

export function append(el: Element, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces the element's content. */
export function render(el: Element, ...children: (Child | Child[])[]): void {
  el.replaceChildren();
  append(el, children);
}

const SVG = "http://www.w3.org/2000/svg";
export function svg(tag: string, attrs: Record<string, string | number> = {}, ...children: (Node | string)[]): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  el.append(...children);
  return el;
}

let nextId = 0;
export const uid = (prefix: string): string => `${prefix}-${++nextId}`;

/** A labelled form field; `control` gets the id the label points at. */
export function field(label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, hint?: string): HTMLElement {
  control.id ||= uid("f");
  const hintId = hint ? `${control.id}-hint` : null;
  if (hintId) control.setAttribute("aria-describedby", hintId);
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control, hint ? h("small", { id: hintId, class: "hint" }, hint) : null);
}

/** A status region screen readers announce. */
export const liveRegion = (): HTMLElement => h("div", { role: "status", "aria-live": "polite", class: "status" });

/**
 * A form field whose error (the API's own message for it) shows under the control; `name` is the
 * API's field name (`name`, `parent_id`, `requests[0].role.id`).
 */
export function apiField(label: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, name: string, hint?: string): HTMLElement {
  const wrapper = field(label, control, hint);
  const error = h("small", { id: `${control.id}-error`, class: "field-error", "data-field": name, hidden: true });
  wrapper.append(error);
  return wrapper;
}

/**
 * Shows each of the API's validation errors next to its field in `form` (matched by the field
 * name, or its last segment); the rest go to `fallback`.
 */
export function showFieldErrors(form: HTMLElement, errors: { field: string; message: string }[], fallback: HTMLElement): void {
  for (const slot of form.querySelectorAll<HTMLElement>(".field-error")) {
    slot.hidden = true;
    slot.textContent = "";
    const control = document.getElementById(slot.id.replace(/-error$/, ""));
    control?.removeAttribute("aria-invalid");
    control?.setAttribute("aria-describedby", (control.getAttribute("aria-describedby") ?? "").replace(slot.id, "").trim());
  }
  const rest: string[] = [];
  for (const e of errors) {
    const slots = [...form.querySelectorAll<HTMLElement>(".field-error")];
    const parts = e.field.split(/[.[\]]+/);
    const slot = slots.find((s) => s.dataset["field"] === e.field) ?? slots.find((s) => parts.includes(s.dataset["field"] ?? ""));
    if (!slot) {
      rest.push(e.field && e.field !== "detail" ? `${e.field}: ${e.message}` : e.message);
      continue;
    }
    slot.hidden = false;
    slot.textContent = slot.textContent ? `${slot.textContent} ${e.message}` : e.message;
    const control = document.getElementById(slot.id.replace(/-error$/, ""));
    control?.setAttribute("aria-invalid", "true");
    control?.setAttribute("aria-describedby", `${control.getAttribute("aria-describedby") ?? ""} ${slot.id}`.trim());
  }
  render(fallback, rest.length > 0 ? h("p", { class: "error", role: "alert" }, rest.join("; ")) : null);
  if (errors.length > 0) (form.querySelector<HTMLElement>("[aria-invalid=true]") ?? fallback).focus?.();
}

/** Runs a form's submit handler, putting the API's errors next to their fields. */
export function onSubmit(form: HTMLFormElement, fallback: HTMLElement, handler: (submitter: string | undefined) => Promise<void>): void {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const submitter = ((event as SubmitEvent).submitter as HTMLButtonElement | null)?.name || undefined;
    const button = form.querySelector<HTMLButtonElement>("button[type=submit]");
    if (button) button.disabled = true;
    handler(submitter)
      .then(() => showFieldErrors(form, [], fallback))
      .catch((error: unknown) => {
        const errors = (error as { errors?: { field: string; message: string }[] }).errors;
        showFieldErrors(form, errors && errors.length > 0 ? errors : [{ field: "detail", message: error instanceof Error ? error.message : String(error) }], fallback);
      })
      .finally(() => {
        if (button) button.disabled = false;
      });
  });
}
