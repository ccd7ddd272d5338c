// Shared vitest settings: tests resolve workspace packages to their TypeScript
// sources (the "source" export condition), so no build is needed before testing.
import { defineConfig } from "vitest/config";

export const sharedConfig = defineConfig({
  resolve: { conditions: ["source"] },
  ssr: { resolve: { conditions: ["source"] } },
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
