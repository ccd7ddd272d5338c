// Public entry of @gatehouse/management-api.
export {};
