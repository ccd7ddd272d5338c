// Public entry of @gatehouse/rbac.
export {};
