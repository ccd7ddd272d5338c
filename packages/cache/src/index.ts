// Public entry of @gatehouse/cache.
export {};
