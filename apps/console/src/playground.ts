// Runs entirely in the browser: the KSL compiler and the evaluator are the same pure packages the
// servers use, bundled unchanged.
import { check, compileSchema, explain, formatRelationship, lookupResources, parseRelationship, RelationshipGraph, type Model } from "@gatehouse/evaluator";
import { compile, formatDiagnostic } from "@gatehouse/ksl";
import { field, h, liveRegion, render } from "./dom.js";

const SAMPLE_KSL = `version 0.1
namespace docs

type user {}

type group {
    relation member: [Any user or group.member]
}

type folder {
    relation parent: [AtMostOne folder]
    relation viewer: [Any user or group.member] or parent.viewer
    relation editor: [Any user or group.member] or parent.editor
    relation view: viewer or editor
}
`;

const SAMPLE_RELATIONSHIPS = `docs/group:engineering#t_member@docs/user:ann
docs/folder:root#t_viewer@docs/group:engineering#member
docs/folder:reports#t_parent@docs/folder:root
docs/folder:drafts#t_editor@docs/user:ben
`;

interface Compiled {
  model: Model;
  zed: string;
}

function compileInput(language: string, text: string): Compiled {
  if (language === "zed") return { model: compileSchema(text), zed: text };
  const result = compile([{ fileName: "playground.ksl", text }]);
  if (result.errors.length > 0 || !result.ast) throw new Error(result.errors.map(formatDiagnostic).join("\n"));
  return { model: compileSchema(result.ast), zed: result.zed };
}

function loadGraph(model: Model, text: string): RelationshipGraph {
  const graph = new RelationshipGraph(model);
  text.split("\n").forEach((line, i) => {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("//")) return;
    try {
      graph.add(parseRelationship(trimmed));
    } catch (error) {
      throw new Error(`line ${i + 1}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  return graph;
}

/** `type:id` → object; `type:id#relation` → subject set. */
function ref(value: string): { type: string; id: string; relation?: string } {
  const [object, relation] = value.trim().split("#");
  const at = (object ?? "").lastIndexOf(":");
  if (at <= 0) throw new Error(`'${value}' is not type:id`);
  return { type: object!.slice(0, at), id: object!.slice(at + 1), ...(relation ? { relation } : {}) };
}

export function playgroundScreen(main: HTMLElement): void {
  const language = h("select", {}, h("option", { value: "ksl" }, "KSL"), h("option", { value: "zed" }, "zed (SpiceDB schema)"));
  const schema = h("textarea", { rows: 16, spellcheck: "false", class: "code" });
  schema.value = SAMPLE_KSL;
  const relationships = h("textarea", { rows: 8, spellcheck: "false", class: "code" });
  relationships.value = SAMPLE_RELATIONSHIPS;
  const resource = h("input", { value: "docs/folder:reports", autocomplete: "off" });
  const permission = h("input", { value: "view", autocomplete: "off" });
  const subject = h("input", { value: "docs/user:ann", autocomplete: "off" });
  const status = liveRegion();
  const output = h("div", { class: "card", id: "playground-output" });
  const zedOut = h("pre", { class: "code zed-out", "aria-label": "Compiled zed schema" });

  const withGraph = (fn: (graph: RelationshipGraph) => HTMLElement[]) => {
    try {
      const compiled = compileInput(language.value, schema.value);
      zedOut.textContent = compiled.zed;
      const graph = loadGraph(compiled.model, relationships.value);
      render(output, ...fn(graph));
      status.textContent = "Done.";
    } catch (error) {
      render(output, h("pre", { class: "error", role: "alert" }, error instanceof Error ? error.message : String(error)));
      status.textContent = "Failed.";
    }
  };

  const button = (label: string, fn: () => void) => h("button", { type: "button", onclick: () => fn() }, label);
  render(
    main,
    h("h1", {}, "Playground"),
    h("p", { class: "lede" }, "Write a schema and relationships; check, look up and explain run here in your browser with Gatehouse's own evaluator and KSL compiler. Nothing is sent anywhere."),
    status,
    h(
      "div",
      { class: "split" },
      h(
        "div",
        { class: "card" },
        field("Schema language", language),
        field("Schema", schema),
        field("Relationships (resource#relation@subject, one per line)", relationships, "Stored relations of KSL schemas carry the t_ prefix."),
      ),
      h(
        "div",
        {},
        h(
          "div",
          { class: "card" },
          field("Resource (type:id)", resource),
          field("Permission", permission),
          field("Subject (type:id or type:id#relation)", subject),
          h(
            "div",
            { class: "buttons" },
            button("Compile", () =>
              withGraph((graph) => [h("p", {}, `Compiled: ${graph.model.typeNames.length} definitions.`), h("p", { class: "meta" }, `${countTuples(relationships.value)} relationships loaded.`)]),
            ),
            button("Check", () =>
              withGraph((graph) => {
                const allowed = check(graph, ref(resource.value), permission.value.trim(), ref(subject.value));
                return [h("p", {}, h("span", { class: `verdict ${allowed ? "allowed" : "denied"}` }, allowed ? "ALLOWED" : "DENIED"))];
              }),
            ),
            button("Lookup resources", () =>
              withGraph((graph) => {
                const ids = lookupResources(graph, ref(resource.value).type, permission.value.trim(), ref(subject.value));
                return [
                  h("p", {}, `${ids.length} ${ref(resource.value).type} objects:`),
                  h(
                    "ul",
                    {},
                    ids.map((id) => h("li", {}, h("code", {}, id))),
                  ),
                ];
              }),
            ),
            button("Explain", () =>
              withGraph((graph) => {
                const e = explain(graph, ref(resource.value), permission.value.trim(), ref(subject.value));
                return [h("p", {}, h("span", { class: `verdict ${e.allowed ? "allowed" : "denied"}` }, e.allowed ? "ALLOWED" : "DENIED")), h("p", { class: "summary" }, e.summary)];
              }),
            ),
          ),
        ),
        output,
        h("details", { class: "card" }, h("summary", {}, "Compiled zed"), zedOut),
      ),
    ),
  );
}

function countTuples(text: string): number {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.trim().startsWith("//"))
    .map((l) => formatRelationship(parseRelationship(l))).length;
}
