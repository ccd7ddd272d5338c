import { readFile } from "node:fs/promises";
import { MigrationError } from "./errors.js";

/** Reads and parses a JSON file with errors that name the file. */
export async function readJsonFile(path: string, what: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : String(err);
    throw new MigrationError("file-not-found", `cannot read ${what} '${path}': ${reason}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new MigrationError("invalid-json", `${what} '${path}' is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}
