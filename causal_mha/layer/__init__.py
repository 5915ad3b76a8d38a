"""The attention layer real models use: the module, who sees whom, the routes, rotary
positions, the caches."""
