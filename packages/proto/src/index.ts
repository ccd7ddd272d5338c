// Public entry of @gatehouse/proto.
export {};
