// scripts/build-images.sh, run with stand-ins for docker and pulumi that log their arguments: it
// builds each app's Dockerfile from the repository root and, with --push, records the digest the
// registry assigned in the stack (what prod requires), and refuses to record a missing digest.
import { execFile } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SERVICE_NAMES } from "../src/config.js";
import { INFRA_DIR } from "./support/stack-config.js";

const run = promisify(execFile);
const digestOf = (service: string) => `sha256:${Buffer.from(service).toString("hex").padEnd(64, "0").slice(0, 64)}`;

let bin: string;
beforeEach(async () => {
  bin = await mkdtemp(join(tmpdir(), "build-images-"));
  // docker: logs; `inspect` answers the RepoDigests a push gives (none for FAKE_NO_DIGEST).
  await writeFile(
    join(bin, "docker"),
    `#!/usr/bin/env bash
echo "docker $*" >> "${bin}/log"
if [ "$1" = inspect ] && [ -z "\${FAKE_NO_DIGEST:-}" ]; then
  image="\${@: -1}"; repo="\${image%:*}"; service="\${repo##*/}"
  printf '%s@sha256:%s\\n' "$repo" "$(printf %s "$service" | od -An -tx1 | tr -d ' \\n' | awk '{ s = $0; while (length(s) < 64) s = s "0"; print substr(s, 1, 64) }')"
fi
`,
  );
  await writeFile(join(bin, "pulumi"), `#!/usr/bin/env bash\necho "pulumi $* (in $PWD)" >> "${bin}/log"\n`);
  await chmod(join(bin, "docker"), 0o755);
  await chmod(join(bin, "pulumi"), 0o755);
});
afterEach(async () => {
  await rm(bin, { recursive: true, force: true });
});

async function buildImages(args: string[], env: Record<string, string> = {}) {
  const result = await run("bash", [join(INFRA_DIR, "scripts/build-images.sh"), ...args], { env: { ...process.env, PATH: `${bin}:${process.env["PATH"]}`, ...env } }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  );
  const log = await readFile(join(bin, "log"), "utf8").catch(() => "");
  return { ...result, log: log.trim().split("\n").filter(Boolean) };
}

describe("build-images.sh", () => {
  it("with --push: builds each Dockerfile from the root, pushes, and records each digest in the stack", async () => {
    const { code, log, stdout } = await buildImages(["--stack", "prod", "--push"]);
    expect(code).toBe(0);
    const root = join(INFRA_DIR, "..");
    for (const service of SERVICE_NAMES) {
      const image = `quay.io/gatehouse/${service}:0.1.0`;
      expect(log).toContain(`docker build -f ${root}/apps/${service}/Dockerfile -t ${image} ${root}`);
      expect(log).toContain(`docker push ${image}`);
      expect(log).toContain(`pulumi config set --stack prod --path gatehouse:imageDigests.${service} ${digestOf(service)} (in ${INFRA_DIR.replace(/\/$/, "")})`);
      expect(stdout).toContain(`${service}: quay.io/gatehouse/${service}@${digestOf(service)}`);
    }
  });

  it("without --push: builds only, records no digest (a local image has none)", async () => {
    const { code, log, stdout } = await buildImages(["--registry", "registry.example/gh", "--tag", "1.2.3"]);
    expect(code).toBe(0);
    expect(log.filter((l) => l.startsWith("docker build"))).toHaveLength(3);
    expect(log.filter((l) => !l.startsWith("docker build"))).toEqual([]);
    expect(stdout).toContain("not pushed: no digest recorded");
  });

  it("fails, recording nothing, when the registry reports no digest", async () => {
    const { code, log, stderr } = await buildImages(["--push"], { FAKE_NO_DIGEST: "1" });
    expect(code).toBe(1);
    expect(stderr).toContain("no registry digest for quay.io/gatehouse/management-api:0.1.0");
    expect(log.some((l) => l.startsWith("pulumi"))).toBe(false);
  });

  it("refuses an unknown argument with a usage line (exit 2)", async () => {
    const { code, stderr } = await buildImages(["--tga", "1"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^usage: /);
  });
});
