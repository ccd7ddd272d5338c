import { describe, expect, it } from "vitest";
import { ConfigError, defineConfig, renderConfigTable, renderEnvExample, setting } from "@gatehouse/config";

const demo = defineConfig("demo", {
  PORT: setting.port("Listen port", 8000),
  ENABLED: setting.bool("Switch", false),
  LIMIT: setting.int("A bound", { default: 5, min: 1, max: 10 }),
  TIMEOUT_MS: setting.int("Optional bound", { min: 1, unset: "no bound" }),
  MODE: setting.oneOf("Mode", ["a", "b"], "a"),
  ISSUER: setting.url("Issuer", { protocols: ["https", "http"], unset: "tokens refused" }),
  PASSWORD: setting.string("Secret", { secret: true, unset: "none" }),
});

describe("defineConfig", () => {
  it("applies defaults for unset and blank variables", () => {
    expect(demo.parse({ ENABLED: "  " })).toEqual({ PORT: 8000, ENABLED: false, LIMIT: 5, TIMEOUT_MS: undefined, MODE: "a", ISSUER: undefined, PASSWORD: undefined });
  });

  it("reads booleans and numbers by the same rules everywhere", () => {
    for (const yes of ["1", "true", "TRUE", "yes", "on"]) expect(demo.parse({ ENABLED: yes }).ENABLED).toBe(true);
    for (const no of ["0", "false", "No", "off"]) expect(demo.parse({ ENABLED: no }).ENABLED).toBe(false);
    expect(demo.parse({ PORT: "0", LIMIT: "10", TIMEOUT_MS: "250" })).toMatchObject({ PORT: 0, LIMIT: 10, TIMEOUT_MS: 250 });
  });

  it("names every bad variable, with the rule and the value it got", () => {
    let error: unknown;
    try {
      demo.parse({ PORT: "eighty", ENABLED: "maybe", LIMIT: "11", MODE: "c", ISSUER: "ftp://x", TIMEOUT_MS: "1.5" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = Object.fromEntries((error as ConfigError).problems.map((p) => [p.variable, p.message]));
    expect(problems).toEqual({
      PORT: "must be an integer, got 'eighty'",
      ENABLED: "must be true or false, got 'maybe'",
      LIMIT: "must be an integer from 1 to 10, got '11'",
      TIMEOUT_MS: "must be an integer, got '1.5'",
      MODE: "must be one of a, b, got 'c'",
      ISSUER: "must be a https or http URL, got 'ftp://x'",
    });
    expect((error as Error).message).toMatch(/^Invalid demo configuration: PORT: must be an integer/);
  });

  it("never echoes an unbounded value", () => {
    expect(() => demo.parse({ MODE: "x".repeat(10_000) })).toThrow(/got 'x{64}…'$/);
  });
});

describe("rendering", () => {
  const other = defineConfig("other", { PORT: setting.port("Listen port", 8000), EXTRA: setting.bool("Other switch", true) });

  it("renders one table row per variable with every app that reads it", () => {
    const table = renderConfigTable([demo, other]);
    expect(table).toContain("| `PORT` | demo, other | `8000` | Listen port |");
    expect(table).toContain("| `ISSUER` | demo | unset → tokens refused | Issuer |");
    expect(table).toContain("| `MODE` | demo | `a` | Mode (a \\| b) |");
  });

  it("renders .env.example with defaults commented out and secrets empty", () => {
    const text = renderEnvExample([demo, other], "Example");
    expect(text.startsWith("# Example\n")).toBe(true);
    expect(text).toContain("# LIMIT=5\n");
    expect(text).toContain("# PASSWORD=\n");
    expect(text).toContain("# EXTRA=true\n");
  });
});
