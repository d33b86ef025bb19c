"""Counters: hardware events through perf where the machine exposes them, simulated caches (cachegrind) otherwise."""
