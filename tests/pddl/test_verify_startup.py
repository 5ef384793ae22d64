"""A single ``planproof verify`` call imports only what the check needs: no planner front
end, no LLM client, no rich, no lark (the BDDL reader), no other command's modules. A set
of modules, not a wall time, so the machine's load cannot decide it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLOCKS = ROOT / "tests" / "data" / "ipc" / "blocks"

EXCLUDED = (
    "unified_planning",
    "up_fast_downward",
    "pyperplan",
    "litellm",
    "openai",
    "rich",
    "lark",
    "z3",
    "ray",
    "networkx",
    "numpy",
    "scipy",
    "planproof.ltl.bddl.reader",
    "planproof.executor",
    "planproof.runs",
    "planproof.interface",
    "planproof.metrics",
    "planproof.simulators",
    "planproof.commands.plan",
    "planproof.commands.progress",
)


def test_a_single_verify_imports_only_what_the_check_needs(tmp_path: Path) -> None:
    plan = tmp_path / "plan.txt"
    plan.write_text("(unstack b a)\n(put-down b)\n")
    code = (
        "import sys, json, contextlib, io\n"
        "from planproof.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    rc = main(['verify', '--domain', {str(BLOCKS / 'domain.pddl')!r}, '--problem',"
        f" {str(BLOCKS / 'probBLOCKS-10-0.pddl')!r}, '--plan', {str(plan)!r}, '--json'])\n"
        "print(json.dumps({'rc': rc, 'modules': sorted(sys.modules)}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    data = json.loads(out.stdout.strip().splitlines()[-1])
    assert data["rc"] in (0, 1)  # the check ran
    loaded = set(data["modules"])
    assert "planproof.pddl.validate" in loaded
    heavy = sorted(m for m in loaded for x in EXCLUDED if m == x or m.startswith(x + "."))
    assert heavy == []
