// An embedded data directory of another PostgreSQL major is refused with a message that names it.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { EMBEDDED_POSTGRES_MAJOR } from "../src/db/pglite.js";
import { openStore } from "../src/index.js";

const dirs: string[] = [];
const freshDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "gh-pglite-"));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

it("writes data directories of the PostgreSQL major it declares", async () => {
  const dir = await freshDir();
  const store = await openStore({ dataDir: dir });
  await store.close();
  expect((await readFile(join(dir, "PG_VERSION"), "utf8")).trim()).toBe(EMBEDDED_POSTGRES_MAJOR);
});

it("refuses a data directory of another major, naming both, and leaves it untouched", async () => {
  const dir = await freshDir();
  await writeFile(join(dir, "PG_VERSION"), "17\n");
  await expect(openStore({ dataDir: dir })).rejects.toMatchObject({ code: "unavailable", message: expect.stringMatching(/PostgreSQL 17 database; the embedded PostgreSQL is 18/) });
  expect(await readFile(join(dir, "PG_VERSION"), "utf8")).toBe("17\n");
});
