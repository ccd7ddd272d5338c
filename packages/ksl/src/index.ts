// Public entry of @gatehouse/ksl.
export {};
