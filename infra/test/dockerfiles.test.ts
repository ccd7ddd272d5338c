// Docker is not needed to check what matters in the apps' Dockerfiles: pinned bases, the repository's
// pnpm version, a pruned build, no secrets, a non-root runtime user matching the Deployments, and the
// ports the Deployments probe.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SERVICE_NAMES } from "../src/config.js";
import { RUN_AS_USER } from "../src/components/service-component.js";
import { SERVICES } from "./support/expectations.js";
import { INFRA_DIR } from "./support/stack-config.js";

const ROOT = `${INFRA_DIR}../`;
const rootPackage = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")) as { packageManager: string; devDependencies: Record<string, string> };
/** The Node.js major the repository runs on (.nvmrc pins the release). */
const nodeMajor = readFileSync(`${ROOT}.nvmrc`, "utf8").trim().replace(/^v/, "").split(".")[0];

interface Instruction {
  op: string;
  args: string;
}

/** Instructions with continuation lines joined and comments dropped. */
function parseDockerfile(text: string): Instruction[] {
  const joined = text.replace(/\\\r?\n/g, " ");
  return joined
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(" ") };
    });
}

describe.each(SERVICE_NAMES)("apps/%s/Dockerfile", (app) => {
  const text = readFileSync(`${ROOT}apps/${app}/Dockerfile`, "utf8");
  const instructions = parseDockerfile(text);
  const stages = instructions.filter((i) => i.op === "FROM");
  const lastFrom = instructions.lastIndexOf(stages.at(-1)!);
  const runtime = instructions.slice(lastFrom);

  it("builds every stage from a slim image of the Node major pinned in .nvmrc", () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const s of stages) expect(s.args).toMatch(new RegExp(`^node:${nodeMajor}(\\.\\d+)*-bookworm-slim(@sha256:[0-9a-f]{64})? AS \\w+$`));
  });

  it("installs the pnpm version of the root package.json and the root's turbo version", () => {
    const pnpm = rootPackage.packageManager.replace(/^pnpm@/, "");
    const versions = [...text.matchAll(/pnpm@([\w.-]+)/g)].map((m) => m[1]);
    expect(versions.length).toBeGreaterThan(0);
    expect(new Set(versions)).toEqual(new Set([pnpm]));
    const turbo = [...text.matchAll(/turbo@([\w.-]+)/g)].map((m) => m[1]);
    expect(new Set(turbo)).toEqual(new Set([rootPackage.devDependencies["turbo"]!.replace(/^\^|~/, "")]));
  });

  it("prunes the workspace to this app, installs from the lockfile and deploys production dependencies", () => {
    const runs = instructions.filter((i) => i.op === "RUN").map((i) => i.args);
    expect(runs.some((r) => r.includes(`prune @gatehouse/${app} --docker`))).toBe(true);
    expect(runs.some((r) => /pnpm install --frozen-lockfile/.test(r))).toBe(true);
    expect(runs.some((r) => r.includes(`turbo run build --filter @gatehouse/${app}...`))).toBe(true);
    expect(runs.some((r) => r.includes(`pnpm --filter @gatehouse/${app} deploy --prod`))).toBe(true);
  });

  it(`runs as the non-root UID ${RUN_AS_USER} the Deployments require`, () => {
    const users = runtime.filter((i) => i.op === "USER");
    expect(users.map((u) => u.args)).toEqual([String(RUN_AS_USER)]);
    // Nothing after USER may switch back to root.
    expect(runtime.slice(runtime.indexOf(users[0]!)).filter((i) => i.op === "RUN")).toEqual([]);
  });

  it("exposes the ports the Deployment declares and starts the compiled entry point", () => {
    const exposed = runtime.filter((i) => i.op === "EXPOSE").flatMap((i) => i.args.split(/\s+/).map(Number));
    expect(exposed.sort()).toEqual(Object.values(SERVICES[app].ports).sort());
    expect(runtime.filter((i) => i.op === "CMD").map((i) => i.args)).toEqual(['["node", "dist/main.js"]']);
    expect(runtime.filter((i) => i.op === "COPY").every((i) => i.args.startsWith("--from="))).toBe(true);
  });

  it("bakes in no secrets or connection strings", () => {
    for (const i of instructions.filter((x) => x.op === "ENV" || x.op === "ARG")) {
      expect(i.args, `${i.op} ${i.args}`).not.toMatch(/PASSWORD|SECRET|TOKEN|_KEY|DATABASE_URL|REDIS_URL|CLIENT_ID/i);
    }
    expect(text).not.toMatch(/(postgres|redis):\/\//);
    expect(
      instructions
        .filter((i) => i.op === "COPY" || i.op === "ADD")
        .map((i) => i.args)
        .join("\n"),
    ).not.toMatch(/\.env|\.npmrc|id_rsa|\.pem/);
  });
});

describe(".dockerignore", () => {
  const ignored = readFileSync(`${ROOT}.dockerignore`, "utf8")
    .split(/\r?\n/)
    .map((l) => l.trim());
  it("keeps local installs, build output, git history and env files out of the build context", () => {
    for (const pattern of ["**/node_modules", "**/dist", ".git", "**/.env", "**/.env.*"]) expect(ignored).toContain(pattern);
  });
});

describe("apps/authz-engine/Dockerfile, the engine's memory", () => {
  it("asks for transparent huge pages for large allocations (the graph's arrays)", () => {
    const instructions = parseDockerfile(readFileSync(`${ROOT}apps/authz-engine/Dockerfile`, "utf8"));
    const runtime = instructions.slice(instructions.findLastIndex((i) => i.op === "FROM"));
    expect(runtime.filter((i) => i.op === "ENV").map((i) => i.args)).toContain("GLIBC_TUNABLES=glibc.malloc.hugetlb=1");
  });
});
