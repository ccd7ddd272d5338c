// `gatehouse start` settings for the role configuration.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveStartConfig } from "../src/start/config.js";

describe("resolveStartConfig --role-config / GATEHOUSE_ROLE_CONFIG", () => {
  it("uses the built-in configuration and the demo organisation by default", () => {
    const config = resolveStartConfig({ seed: true }, {});
    expect(config.roleConfigDir).toBeUndefined();
    expect(config.seedDemo).toBe(true);
  });

  it("takes the directory from the flag (over the environment), resolved, without the demo organisation", () => {
    const config = resolveStartConfig({ seed: true, roleConfig: "rbac-config/configs/stage" }, { GATEHOUSE_ROLE_CONFIG: "/elsewhere" });
    expect(config.roleConfigDir).toBe(path.resolve("rbac-config/configs/stage"));
    expect(config.seedDemo).toBe(false);
    expect(resolveStartConfig({ seed: true }, { GATEHOUSE_ROLE_CONFIG: "/srv/cfg" }).roleConfigDir).toBe("/srv/cfg");
  });

  it("GATEHOUSE_SEED_DEMO=true still seeds the demo with a directory; --no-seed always wins", () => {
    expect(resolveStartConfig({ seed: true, roleConfig: "/srv/cfg" }, { GATEHOUSE_SEED_DEMO: "true" }).seedDemo).toBe(true);
    expect(resolveStartConfig({ seed: false }, { GATEHOUSE_SEED_DEMO: "true" }).seedDemo).toBe(false);
  });
});
