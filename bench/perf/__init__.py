"""Shoal's benchmark runner (bench/run.py), one module per concern; see
the docstring of bench/run.py for what a run does."""
