// Public entry of @gatehouse/client.
export {};
