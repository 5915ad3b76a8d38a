"""What measures and judges: benchmarks, the conformance kit, the console commands."""
