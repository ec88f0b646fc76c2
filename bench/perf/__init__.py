# SPDX-License-Identifier: BSD-3-Clause
"""Shoal's benchmark runner (bench/run.py) and interleaved comparisons
(bench/compare.py), one module per concern; see the docstrings of those two
scripts for what a run does."""
