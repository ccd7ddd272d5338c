import type { Request } from "express";
import type { V1GroupListQuery } from "../commands/v1-group-list.js";
import type { V1PrincipalListQuery } from "../commands/v1-principal-list.js";
import { param } from "./v1.js";

/** The v1 group list's filters, read as upstream reads them (the last of a repeated parameter). */
export const v1GroupListQuery = (req: Request): V1GroupListQuery => ({
  name: param(req, "name"),
  nameMatch: param(req, "name_match"),
  uuid: param(req, "uuid"),
  roleNames: param(req, "role_names"),
  roleDiscriminator: param(req, "role_discriminator"),
  principals: param(req, "principals"),
  system: param(req, "system"),
  platformDefault: param(req, "platform_default"),
  adminDefault: param(req, "admin_default"),
  username: param(req, "username"),
  excludeUsername: param(req, "exclude_username"),
  orderBy: param(req, "order_by"),
  scope: param(req, "scope"),
});

/** The v1 principal list's filters. */
export const v1PrincipalListQuery = (req: Request): V1PrincipalListQuery => ({
  usernames: param(req, "usernames"),
  email: param(req, "email"),
  matchCriteria: param(req, "match_criteria"),
  sortOrder: param(req, "sort_order"),
  status: param(req, "status"),
  adminOnly: param(req, "admin_only"),
  usernameOnly: param(req, "username_only"),
  type: param(req, "type"),
  name: param(req, "name"),
  owner: param(req, "owner"),
  description: param(req, "description"),
  orderBy: param(req, "order_by"),
});
