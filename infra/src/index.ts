// Pulumi entry point: load the stack's configuration and deploy; the returned object is the stack's outputs.
import { loadConfig } from "./config.js";
import { deploy } from "./program.js";

export default async () => deploy(loadConfig()).outputs;
