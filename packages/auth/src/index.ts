// Public entry of @gatehouse/auth.
export {};
