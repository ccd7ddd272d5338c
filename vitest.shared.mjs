// Shared vitest settings: tests resolve workspace packages to their TypeScript
// sources (the "source" export condition), so no build is needed before testing.
import { defineConfig } from "vitest/config";

export const sharedConfig = defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    // Generous: a bound for hung tests, not a speed check (CI machines are shared and can be slow).
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: "forks",
  },
});
