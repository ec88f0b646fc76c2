"""Shoal's table-driven generator: load -> expand -> lower -> render."""
