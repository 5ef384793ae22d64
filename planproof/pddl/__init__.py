"""pddl layer (see docs/architecture.md); filled by later issues."""
