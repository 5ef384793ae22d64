"""What the differential fuzzers of the reference readings share: running
``fuzz_reference_driver.py`` in a reference venv on a list of cases, resumably, niced,
with the hash seed that reproduces the paper; and storing the cases with the reference's
verdicts as test data (provenance included)."""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference_env import Flavour, ensure_reference_env

DRIVER = Path(__file__).resolve().with_name("fuzz_reference_driver.py")
HASH_SEED = "2"
"""``PYTHONHASHSEED`` of the reference runs (goal interpretation's name map depends on it:
seed 2 gives the paper's figures)."""
NICE = 19
BATCH = 20
"""Cases per driver process: each batch's results are appended as it goes, so an
interrupted run loses one case at most."""
RESULTS = Path(__file__).resolve().parent / "results"


def case_record(
    key: str, model: str, identifier: str, mutations: Sequence[str], text: str
) -> dict[str, Any]:
    """One mutated answer as the fuzzers pass it on and store it."""
    return {
        "key": key,
        "model": model,
        "identifier": identifier,
        "mutations": list(mutations),
        "llm_output": text,
    }


def fuzz_run(
    argv: Sequence[str] | None,
    doc: str | None,
    defaults: tuple[int, int],
    make_cases: Callable[[int, int], list[dict[str, Any]]],
    *,
    flavour: Flavour,
    module: str,
) -> tuple[argparse.Namespace, list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """A fuzzer's command line (``--cases``, ``--seed``, ``--save``; ``defaults``: cases,
    seed), its cases and the reference's record of each (under
    ``benchmarks/results/fuzz-<module>-<seed>/``, resumable)."""
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--cases", type=int, default=defaults[0])
    ap.add_argument("--seed", type=int, default=defaults[1])
    ap.add_argument("--save", type=Path, help="store the cases and verdicts as test data")
    args = ap.parse_args(argv)
    cases = make_cases(args.cases, args.seed)
    tag = {"transition_modeling": "tm", "goal_interpretation": "gi"}.get(module, module)
    workdir = RESULTS / f"fuzz-{tag}-{args.seed}"
    return args, cases, run_reference_cases(flavour, module, cases, workdir)


def run_reference_cases(
    flavour: Flavour,
    module: str,
    cases: Sequence[Mapping[str, Any]],
    workdir: Path,
    *,
    timeout_per_case: float = 300.0,
) -> dict[str, dict[str, Any]]:
    """The reference's record of each case (key → the driver's line), running only the
    cases not yet in ``workdir/reference.jsonl``."""
    python = ensure_reference_env(flavour=flavour)
    workdir.mkdir(parents=True, exist_ok=True)
    out = workdir / "reference.jsonl"

    def stored() -> dict[str, dict[str, Any]]:
        if not out.is_file():
            return {}
        lines = out.read_text(encoding="utf-8").splitlines()
        return {r["key"]: r for r in map(json.loads, filter(None, lines))}

    todo = [dict(c) for c in cases if c["key"] not in stored()]
    env = {**os.environ, "PYTHONHASHSEED": HASH_SEED}
    for start in range(0, len(todo), BATCH):
        part = todo[start : start + BATCH]
        job = workdir / "job.json"
        job.write_text(
            json.dumps({"module": module, "workdir": str(workdir), "cases": part}),
            encoding="utf-8",
        )
        with (workdir / "driver.log").open("a", encoding="utf-8") as log:
            subprocess.run(
                ["nice", "-n", str(NICE), str(python), str(DRIVER), str(job), str(out)],
                env=env,
                cwd=workdir,
                stdout=log,
                stderr=log,
                timeout=timeout_per_case * len(part),
                check=True,
            )
        print(f"reference: {min(start + BATCH, len(todo))}/{len(todo)} new cases", flush=True)
    return stored()


def save_cases(
    path: Path, kind: str, command: str, versions: Mapping[str, str], cases: Sequence[Any]
) -> None:
    """The stored form of a fuzz run (data, not reference code): the mutated answers and
    the reference's verdicts, with how they were made (gzip-compressed for a ``.gz``
    path: the answers are long and repetitive)."""
    doc = {
        "provenance": {
            "what": f"{kind}: mutated published answers and the reference's verdicts",
            "reference": dict(versions),
            "hash_seed": HASH_SEED,
            "command": command,
            "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "answers": "mutated from the published answers in the virtualhome-eval 0.1.1 "
            "wheel on PyPI (llm_response/, MIT licence)",
        },
        "cases": list(cases),
    }
    data = (json.dumps(doc, sort_keys=True, indent=0) + "\n").encode("utf-8")
    path.write_bytes(gzip.compress(data, mtime=0) if path.suffix == ".gz" else data)
