// Runs before each test file (vitest.config.ts): the file's OpenAPI validation counts are written
// when it ends (OPENAPI_STATS_FILE), whichever of the worker's files loaded the validator first.
import { afterAll } from "vitest";
import { reportOpenApiStats } from "./openapi-validator.js";

afterAll(reportOpenApiStats);
