// Public entry of @gatehouse/workspace-cache.
export {};
