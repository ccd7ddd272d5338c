// In-memory stores started from the copy of an empty cluster (what test runs set up) are databases
// of their own, and a copy that cannot be read costs only the speed-up.
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it, vi } from "vitest";
import { EMBEDDED_POSTGRES_MAJOR } from "../src/db/pglite.js";

const dirs: string[] = [];
const freshDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "gh-pglite-template-"));
  dirs.push(dir);
  return dir;
};
const saved = process.env.GATEHOUSE_PGLITE_TEMPLATE_DIR;
afterAll(async () => {
  process.env.GATEHOUSE_PGLITE_TEMPLATE_DIR = saved;
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** The store module afresh (its copy of the cluster is kept per module instance). */
async function freshStoreModule() {
  vi.resetModules();
  return import("../src/index.js");
}

it("writes the copy once, and stores started from it are separate, working databases", async () => {
  const dir = await freshDir();
  process.env.GATEHOUSE_PGLITE_TEMPLATE_DIR = dir;
  const { openStore } = await freshStoreModule();
  const first = await openStore({ schema: "gh_one" });
  const file = join(dir, `empty-cluster-pg${EMBEDDED_POSTGRES_MAJOR}.tar`);
  expect(existsSync(file)).toBe(true);
  // And the migrated copy, named by the schema and the migrations: the second store loads it.
  const seeded = (await readdir(dir)).filter((f) => f.startsWith(`seeded-pg${EMBEDDED_POSTGRES_MAJOR}-gh_one-`));
  expect(seeded).toHaveLength(1);
  const second = await openStore({ schema: "gh_one" });
  try {
    await first.tenants.bootstrap("tpl1");
    expect((await first.tenants.find("tpl1"))?.orgId).toBe("tpl1");
    expect(await second.tenants.find("tpl1")).toBeUndefined();
    expect(first.storeId).not.toBe(second.storeId);
  } finally {
    await first.close();
    await second.close();
  }
  // Another process (a fresh module here) starts from the file.
  const { openStore: openAgain } = await freshStoreModule();
  const third = await openAgain({});
  expect(await third.tenants.find("tpl1")).toBeUndefined();
  await third.close();
});

it("falls back to initdb when the copy is unreadable", async () => {
  const dir = await freshDir();
  process.env.GATEHOUSE_PGLITE_TEMPLATE_DIR = dir;
  const { openStore } = await freshStoreModule();
  await writeFile(join(dir, `empty-cluster-pg${EMBEDDED_POSTGRES_MAJOR}.tar`), "not a tar file");
  const store = await openStore({});
  await store.tenants.bootstrap("tpl2");
  expect((await store.tenants.find("tpl2"))?.orgId).toBe("tpl2");
  await store.close();
});

it("a migrated copy gives each store its own id and data, and an unreadable one is rebuilt", async () => {
  const dir = await freshDir();
  process.env.GATEHOUSE_PGLITE_TEMPLATE_DIR = dir;
  const { openStore } = await freshStoreModule();
  const built = await openStore({ schema: "gh_two" });
  await built.tenants.bootstrap("tpl3");
  const [name] = (await readdir(dir)).filter((f) => f.startsWith("seeded-"));
  const loaded = await openStore({ schema: "gh_two" });
  expect(loaded.storeId).not.toBe(built.storeId);
  expect(await loaded.tenants.find("tpl3")).toBeUndefined();
  await built.close();
  await loaded.close();

  await writeFile(join(dir, name!), "not a tar file");
  const { openStore: openAgain } = await freshStoreModule();
  const rebuilt = await openAgain({ schema: "gh_two" });
  await rebuilt.tenants.bootstrap("tpl4");
  expect((await rebuilt.tenants.find("tpl4"))?.orgId).toBe("tpl4");
  await rebuilt.close();
  const again = await openAgain({ schema: "gh_two" });
  expect(await again.tenants.find("tpl4")).toBeUndefined();
  await again.close();
});
