"""Shared rule mechanisms that titles compose: market, shares, trains and phases, rounds and steps."""
