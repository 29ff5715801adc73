"""Fault tests on a simulated LAN of network namespaces (see harness.py)."""
