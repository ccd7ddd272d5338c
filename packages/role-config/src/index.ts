// Public entry of @gatehouse/role-config.
export {};
