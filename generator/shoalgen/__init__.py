# SPDX-License-Identifier: BSD-3-Clause
"""Shoal's table-driven generator: load -> expand -> lower -> render."""
