// Rewrites the README's configuration table and .env.example from the apps' schemas.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { envExample, withConfigTable } from "../src/start/config-docs.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const readmePath = path.join(root, "README.md");
writeFileSync(readmePath, withConfigTable(readFileSync(readmePath, "utf8")));
writeFileSync(path.join(root, ".env.example"), envExample());
console.log("README.md configuration table and .env.example regenerated");
