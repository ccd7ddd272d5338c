// Reads `Pulumi.<stack>.yaml` into the flat `{ "gatehouse:key": string }` map Pulumi hands a program
// (objects arrive as JSON text, scalars as strings).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

export const INFRA_DIR = fileURLToPath(new URL("../../", import.meta.url));

export function readStackFile(stack: string): Record<string, unknown> {
  const doc = parse(readFileSync(`${INFRA_DIR}Pulumi.${stack}.yaml`, "utf8")) as { config?: Record<string, unknown> };
  if (!doc?.config) throw new Error(`Pulumi.${stack}.yaml has no config block`);
  return doc.config;
}

export function stackConfig(stack: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(readStackFile(stack))) {
    out[key] = typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
  }
  return out;
}
