import type { Request } from "express";
import { parseQuery } from "../http/validate.js";
import { v1GroupListQuery as groupListSchema, v1PrincipalListQuery as principalListSchema, type V1GroupListQuery, type V1PrincipalListQuery } from "../schemas/v1-queries.js";

/** The v1 group list's filters, parsed as upstream reads them (the last of a repeated parameter). */
export const v1GroupListQuery = (req: Request): V1GroupListQuery => parseQuery(groupListSchema, req);

/** The v1 principal list's filters. */
export const v1PrincipalListQuery = (req: Request): V1PrincipalListQuery => parseQuery(principalListSchema, req);
