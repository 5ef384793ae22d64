"""Compare an LLM-written PDDL domain with a reference domain, operator by operator
(docs/compare-domains.md)."""
