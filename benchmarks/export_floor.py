"""The floor of ``ptotui export --format json``: the same two files in, one JSON out, nothing else.

orjson reads regression_latest.json and kernel_state_matrix_latest.json and writes one JSON
of both to stdout: what any export of the merged model must at least do.
Run: python benchmarks/export_floor.py BENCH_DIR > out.json
"""

import sys
from pathlib import Path

import orjson

reports = Path(sys.argv[1]) / "reports"
regression = orjson.loads((reports / "regression_latest.json").read_bytes())
state = orjson.loads((reports / "kernel_state_matrix_latest.json").read_bytes())
sys.stdout.buffer.write(orjson.dumps({"regression": regression, "state": state}))
