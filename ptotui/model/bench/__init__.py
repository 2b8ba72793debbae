"""The bench runs themselves (bench/results, bench/generated) and the run as it happens."""
