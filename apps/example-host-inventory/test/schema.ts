// The slice of the stage schema this example needs: host view through workspaces, role bindings
// and the inventory_host_view permission, with the relations the store writes at tenant bootstrap.
export const schemaText = `
definition rbac/principal {}

definition rbac/platform {}

definition rbac/group {
  relation t_member: rbac/principal | rbac/group#member
  relation t_owner: rbac/tenant
  permission member = t_member
}

definition rbac/role {
  relation t_all_all_all: rbac/principal:*
  relation t_inventory_all_all: rbac/principal:*
  relation t_inventory_all_read: rbac/principal:*
  relation t_inventory_hosts_all: rbac/principal:*
  relation t_inventory_hosts_read: rbac/principal:*
  relation t_child: rbac/role
  relation t_owner: rbac/tenant
  permission inventory_host_view = t_inventory_hosts_read + t_inventory_hosts_all + t_inventory_all_read + t_inventory_all_all + t_all_all_all + t_child->inventory_host_view
}

definition rbac/role_binding {
  relation t_role: rbac/role
  relation t_subject: rbac/principal | rbac/group#member
  permission subject = t_subject
  permission inventory_host_view = (subject & t_role->inventory_host_view)
}

definition rbac/tenant {
  relation t_binding: rbac/role_binding
  relation t_platform: rbac/platform
  permission inventory_host_view = t_binding->inventory_host_view
}

definition rbac/workspace {
  relation t_binding: rbac/role_binding
  relation t_parent: rbac/workspace | rbac/tenant
  permission inventory_host_view = t_binding->inventory_host_view + t_parent->inventory_host_view
}

definition hbi/host {
  relation t_workspace: rbac/workspace
  permission inventory_host_view = t_workspace->inventory_host_view
}
`;
