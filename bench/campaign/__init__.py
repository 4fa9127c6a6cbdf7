"""The differential campaign against the reference 18xx engine (a development tool; needs Ruby and REF_18XX).

`python -m bench.campaign bank|forward|reverse|table` — see docs/conformance.md.
"""
