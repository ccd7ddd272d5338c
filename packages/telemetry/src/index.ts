// Public entry of @gatehouse/telemetry.
export {};
