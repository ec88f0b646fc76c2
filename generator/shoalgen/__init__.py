# SPDX-License-Identifier: BSD-3-Clause
"""Shoal's table-driven generator: load -> expand -> lower -> render."""

# What every emitted file says first, in its own comment syntax (the
# templates write it; the files written without one use this).
SPDX = "SPDX-License-Identifier: BSD-3-Clause"
