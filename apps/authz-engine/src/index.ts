// Public entry of @gatehouse/authz-engine.
export {};
