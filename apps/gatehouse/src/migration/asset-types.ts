import { defaultAssetTypes, parseAssetTypes, RbacError, type AssetTypeCatalog } from "@gatehouse/rbac";
import { MigrationError } from "./errors.js";
import { readJsonFile } from "./json-file.js";

/** The asset types file given, else the bundled asset types. */
export async function loadAssetTypes(path: string | undefined): Promise<AssetTypeCatalog> {
  if (!path) return defaultAssetTypes();
  const doc = await readJsonFile(path, "asset types");
  try {
    return parseAssetTypes(doc);
  } catch (err) {
    if (err instanceof RbacError) throw new MigrationError("invalid-export", `asset types '${path}': ${err.message}`);
    throw err;
  }
}
