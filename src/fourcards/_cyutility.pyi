"""Cython's utility code (memoryviews, argument parsing, ...), compiled once and
shared by the other compiled modules (see setup.py): no Python API."""
