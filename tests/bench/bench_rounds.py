"""Wording shared by the benchmarks that repeat a measurement in rounds and report the
median (this machine's speed drifts by 10-25 % over minutes)."""

from __future__ import annotations


def rounds_wording(rounds: int) -> tuple[str, str]:
    """How a figure over ``rounds`` is named: ("median of 3", "median of the rounds"),
    or ("one round", "one round")."""
    if rounds > 1:
        return f"median of {rounds}", "median of the rounds"
    return "one round", "one round"
