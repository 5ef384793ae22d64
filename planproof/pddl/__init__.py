"""The PDDL layer: operator schemas (``schema``), reading and writing domains, problems
and plans (``reader``, ``writer``, ``plan_io``), planners (``planners``: Fast Downward's
driver on planproof's PDDL export, pyperplan on grounded STRIPS from ``ground``, the
built-in search), the tolerant
reader of LLM-written operators (``tolerant``), logic-form matching (``logic_form``), Z3
operator checks (``checks``) and the EAI PDDL data (``eai``). Nothing is imported here,
so importing a submodule never pays for unified-planning or z3 (see docs/pddl.md)."""
