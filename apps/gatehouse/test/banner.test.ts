// The banner's calls work as printed: the workspace-cache call carries the org header it requires,
// and the list example shows something particular to bob (the platform default lets everyone view hosts).
import { describe, expect, it } from "vitest";
import type { RunningGatehouse } from "../src/start/all-in-one.js";
import { startBanner } from "../src/start/banner.js";
import type { StartConfig } from "../src/start/config.js";

const running = {
  ports: { http: 8000, grpc: 9091, cache: 8001, metrics: 9092 },
  demo: { orgId: "12345", workspaces: { root: "r", default: "d", production: "p-1" }, groups: {}, created: true, revision: 1 },
} as unknown as RunningGatehouse;
const config = { host: "127.0.0.1", domain: "redhat" } as unknown as StartConfig;

describe("start banner", () => {
  const banner = startBanner(running, config);

  it("gives the workspace-cache call with the x-rh-rbac-org-id header it requires", () => {
    expect(banner).toContain("curl -s -H 'x-rh-rbac-org-id: 12345' 'http://127.0.0.1:8001/api/rbac/v2/workspaces/?type=root'");
  });

  it("checks with the real Production id and lists a permission only bob's group grants", () => {
    expect(banner).toContain("--object rbac/workspace:p-1 --relation patch_system_edit --subject carol");
    expect(banner).toContain("--relation advisor_disable_recommendations_edit --subject bob");
    expect(banner).not.toContain("inventory_host_view --subject bob");
  });
});
