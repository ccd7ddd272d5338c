// Public entry of @gatehouse/store.
export {};
