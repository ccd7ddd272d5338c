import { defineConfig } from "vite";

// Served by the management API under /console/: relative asset URLs, one hashed bundle, the
// workspace packages compiled from their TypeScript sources (the "source" export condition).
export default defineConfig({
  base: "./",
  resolve: { conditions: ["source", "browser", "module", "import", "default"] },
  build: {
    target: "es2022",
    outDir: "dist",
    emptyOutDir: true,
    sourcemap: false,
    reportCompressedSize: true,
    modulePreload: { polyfill: false },
  },
});
