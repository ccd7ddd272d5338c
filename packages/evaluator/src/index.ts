// Public entry of @gatehouse/evaluator.
export {};
