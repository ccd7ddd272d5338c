import type { AppConfig, Setting } from "./schema.js";

type AnyConfig = AppConfig<Record<string, Setting<unknown>>>;

interface Row {
  variable: string;
  apps: string[];
  doc: Setting<unknown>["doc"];
  /** The default each app applies (they can differ, e.g. PORT). */
  defaults: (string | undefined)[];
}

/** Variables of all apps, once each, in first-seen order, with every app that reads them. */
function rows(configs: readonly AnyConfig[]): Row[] {
  const byName = new Map<string, Row>();
  for (const config of configs) {
    for (const [variable, s] of Object.entries(config.settings)) {
      const row = byName.get(variable);
      if (row) {
        row.apps.push(config.app);
        row.defaults.push(s.doc.default);
      } else byName.set(variable, { variable, apps: [config.app], doc: s.doc, defaults: [s.doc.default] });
    }
  }
  return [...byName.values()];
}

const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The README's configuration table (Markdown). */
export function renderConfigTable(configs: readonly AnyConfig[]): string {
  const lines = ["| Variable | Used by | Default | Meaning |", "|---|---|---|---|"];
  for (const { variable, apps, doc, defaults } of rows(configs)) {
    const text = (value: string | undefined) => (value !== undefined ? `\`${value}\`` : `unset${doc.unset ? ` → ${doc.unset}` : ""}`);
    // Where apps differ, one entry per distinct default with the apps that apply it.
    const byDefault = new Map<string | undefined, string[]>();
    defaults.forEach((value, i) => byDefault.set(value, [...(byDefault.get(value) ?? []), apps[i]!]));
    const fallback = byDefault.size > 1 ? [...byDefault].map(([value, users]) => `${text(value)} (${users.join(", ")})`).join("; ") : text(doc.default);
    lines.push(`| \`${variable}\` | ${apps.join(", ")} | ${cell(fallback)} | ${cell(doc.description)} |`);
  }
  return `${lines.join("\n")}\n`;
}

/** `.env.example`: every variable, commented out at its default (secrets and unset ones left empty). */
export function renderEnvExample(configs: readonly AnyConfig[], header: string): string {
  const out = [...header.split("\n").map((line) => (line ? `# ${line}` : "#")), ""];
  for (const { variable, apps, doc } of rows(configs)) {
    out.push(`# ${doc.description} [${apps.join(", ")}]${doc.default === undefined && doc.unset ? ` Unset: ${doc.unset}.` : ""}`);
    out.push(`# ${variable}=${doc.secret || doc.default === undefined ? "" : doc.default}`);
    out.push("");
  }
  return out.join("\n");
}
