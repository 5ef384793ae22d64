"""PARTNR: evaluation functions (propositions, dependencies, constraints), their engine and
LTL compilation, and a symbolic two-agent world-graph simulator (docs/partnr.md)."""
