"""Puts bench/ on sys.path so the tests import the `peers` package as bench/peer_timing.py does."""
import pathlib
import sys

BENCH = pathlib.Path(__file__).resolve().parents[1]
ROOT = BENCH.parent
FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))
