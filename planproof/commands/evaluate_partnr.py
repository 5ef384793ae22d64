"""``planproof evaluate partnr``: replay two-agent plans in the symbolic PARTNR world and
score them with the paper's evaluation functions.

With no files it runs the bundled corpus (``planproof/examples/partnr``: 33 episodes over
two houses, with a gold plan and wrong plans for each). planproof wrote that corpus; it is
not taken from the PARTNR benchmark, and the run says so (:data:`CORPUS_PROVENANCE`).
Every plan gets one record: success, percent complete, steps, planning cycles, task
offloading, extraneous effort, the first execution error (classified: parsing,
hallucination, affordance naming the agent, missing step, wrong order...), the failure
explanation and, with ``--ltl``, the percent complete of the compiled LTL view. With
``--output DIR`` writes ``results.jsonl`` (one record per plan, with the episode's
instruction and the agents' actions) and ``summary.json`` (the averages, plus the plans per
failure kind and per execution error), which ``planproof report`` reads. Exit status: 0
evaluated (and every ``expect`` block in the plans file matched), 1 an ``expect`` block
differs (or, with ``--require-success``, a plan failed), 2 bad input.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from planproof.commands.errors import BadInput
from planproof.commands.executor_options import (
    add_executor_arguments,
    executor_config,
    open_configured,
)

EXIT_OK, EXIT_NO, EXIT_BAD_INPUT = 0, 1, 2
MAX_BYTES = 50_000_000
TOLERANCE = 1e-9


CORPUS_PROVENANCE = (
    "the bundled corpus (planproof/examples/partnr: 33 episodes over two houses, 75 plans) "
    "was written by planproof, not taken from the PARTNR benchmark: scenes, instructions, "
    "evaluation functions, plans and expected outcomes are planproof's own, in the "
    "benchmark's formats (docs/partnr.md §2)"
)
"""Said in the summary, the table and the report whenever the bundled episodes are used."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--episodes",
        type=Path,
        default=None,
        help="episodes file ({'scenes': ..., 'episodes': [...]} or a list); "
        "default: the bundled corpus, written by planproof (not the PARTNR benchmark's)",
    )
    parser.add_argument(
        "--plans",
        type=Path,
        default=None,
        help="plans file ({'plans': [{'episode_id', 'name', 'agent_0': [...], "
        "'agent_1': [...], 'expect'?}]} or {episode_id: {agent: [...]}}); "
        "default: the bundled plans",
    )
    parser.add_argument("--episode", action="append", default=None, help="only this episode id")
    parser.add_argument("--ltl", action="store_true", help="also evaluate the compiled LTL view")
    parser.add_argument(
        "--require-success", action="store_true", help="exit 1 unless every plan succeeds"
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="directory for results.jsonl (one record per plan) and summary.json",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_executor_arguments(parser)


def _load(path: Path | None, bundled: str) -> Any:
    if path is None:
        from importlib import resources

        text = (
            resources.files("planproof.examples")
            .joinpath("partnr", bundled)
            .read_text(encoding="utf-8")
        )
        return json.loads(text)
    from planproof.boundary import read_json

    # the boundary bounds the read (a device such as /dev/zero never ends) and the nesting
    return read_json(path, max_bytes=MAX_BYTES)


def _plans(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, Mapping) and isinstance(data.get("plans"), list):
        items = data["plans"]
    elif isinstance(data, list):
        items = data
    elif isinstance(data, Mapping):
        items = [{"episode_id": k, **v} if isinstance(v, Mapping) else v for k, v in data.items()]
    else:
        raise ValueError("plans file: expected {'plans': [...]}, a list or a mapping")
    out: list[dict[str, Any]] = []
    for k, item in enumerate(items):
        if not isinstance(item, Mapping) or not isinstance(item.get("episode_id"), str):
            raise ValueError(f"plans[{k}]: an object with an episode_id is expected")
        out.append(dict(item))
    return out


def _check(expect: Any, rec: dict[str, Any]) -> list[str]:
    if not isinstance(expect, Mapping):
        return ["expect must be an object"]
    bad: list[str] = []
    if "success" in expect and expect["success"] != rec["success"]:
        bad.append(f"success {rec['success']} != {expect['success']}")
    pc = expect.get("percent_complete")
    if isinstance(pc, int | float) and abs(pc - rec["percent_complete"]) > TOLERANCE:
        bad.append(f"percent_complete {rec['percent_complete']:.4f} != {pc}")
    for s in expect.get("explanation", []):
        if s not in rec["explanation"]:
            bad.append(f"explanation lacks {s!r}")
    err = expect.get("error")
    got = rec["error"]
    if isinstance(err, Mapping):
        if got is None or got["error_type"] != err.get("kind", got["error_type"]):
            bad.append(f"error {got and got['error_type']} != {err.get('kind')}")
        elif "index" in err and got["step"] != err["index"]:
            bad.append(f"error at step {got['step']} != {err['index']}")
        elif str(err.get("message", "")) not in str(got["message"]):
            bad.append(f"error message lacks {err.get('message')!r}")
    elif "error" not in expect and got is not None and expect:
        bad.append(f"unexpected error {got['error_type']}")
    return bad


BATCH = 32
"""Plans per executor task (one plan takes milliseconds; see docs/scale-out.md)."""


def metrics_for(job: tuple[Any, dict[str, Any], str, bool]) -> Any:
    """One plan's metrics: what a worker computes per plan."""
    from planproof.metrics.partnr import episode_metrics

    episode, agents, name, ltl = job
    return episode_metrics(episode, agents, name=name, ltl=ltl)


def run(args: argparse.Namespace) -> int:
    from planproof.boundary import optional_output_lock

    # checked and held before the work: a second writer of --output is refused at once
    with optional_output_lock(args.output):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from planproof.executor import map_batched
    from planproof.simulators.partnr.errors import PartnrError
    from planproof.simulators.partnr.world import load_episodes

    config = executor_config(args)
    try:
        episodes = {e.episode_id: e for e in load_episodes(_load(args.episodes, "episodes.json"))}
        plans = _plans(_load(args.plans, "plans.json"))
        wanted = set(args.episode or [])
        jobs: list[tuple[Any, dict[str, Any], str, bool]] = []
        chosen: list[dict[str, Any]] = []
        for k, p in enumerate(plans):
            eid = p["episode_id"]
            if wanted and eid not in wanted:
                continue
            if eid not in episodes:
                raise ValueError(f"plans[{k}]: unknown episode {eid!r}")
            agents = {a: v for a, v in p.items() if a not in ("episode_id", "name", "expect")}
            jobs.append((episodes[eid], agents, str(p.get("name", f"plan_{k}")), args.ltl))
            chosen.append(p)
    except (PartnrError, ValueError) as err:
        raise BadInput(str(err)) from None
    if not jobs:  # never "0 plans, exit 0"
        which = f" for episode(s) {', '.join(sorted(wanted))}" if wanted else ""
        raise BadInput(
            f"no plan to evaluate{which}: {len(plans)} plan(s) read, {len(episodes)} episode(s)"
        )
    from planproof.commands.progress import progress_bar, running_total

    with (
        open_configured(config, tasks=-(-len(jobs) // BATCH)) as executor,
        progress_bar(f"replaying {len(jobs)} plans", len(jobs)) as advance,
    ):
        outcomes = map_batched(
            executor, metrics_for, jobs, size=BATCH, on_done=running_total(advance)
        )
    rows = []
    records: list[dict[str, Any]] = []
    mismatches = 0
    for (episode, agents, name, _), p, outcome in zip(jobs, chosen, outcomes, strict=True):
        if outcome.failure is not None:
            raise BadInput(f"plan {name}: {outcome.failure.message}")
        m = outcome.unwrap()
        rec = m.to_dict()
        rec["instruction"] = episode.instruction
        rec["agents"] = {a: list(v) for a, v in agents.items() if isinstance(v, list)}
        if "expect" in p:
            rec["expect_mismatch"] = _check(p["expect"], rec)
            mismatches += bool(rec["expect_mismatch"])
        rows.append(m)
        records.append(rec)
    from planproof.metrics.partnr import aggregate
    from planproof.metrics.summary_intervals import flag_intervals

    summary = {**aggregate(rows), **_failure_counts(records, mismatches)}
    if args.episodes is None:
        summary["corpus"] = "planproof (bundled)"
        summary["notes"] = [CORPUS_PROVENANCE]
    summary["intervals"] = flag_intervals(
        records, {"success_rate": "success", "executable_rate": "executable"}
    )
    if args.output is not None:
        _write(args.output, records, summary)
    if args.json:
        print(json.dumps({"ok": True, "plans": records, "summary": summary}, indent=2))
    else:
        _table(records, summary, mismatches)
    if mismatches or (args.require_success and not all(r.success for r in rows)):
        return EXIT_NO
    return EXIT_OK


def _failure_counts(records: list[dict[str, Any]], mismatches: int) -> dict[str, Any]:
    """What the evaluation functions found, as counts of plans: per failure kind (missing,
    out of order, undone...) and per first execution error type."""
    from collections import Counter

    kinds: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for r in records:
        kinds.update({str(f["kind"]) for f in r["failures"]})
        if r["error"] is not None:
            errors[str(r["error"]["error_type"])] += 1
    return {
        "failures": dict(sorted(kinds.items())),
        "errors": dict(sorted(errors.items())),
        "expect_mismatches": mismatches,
    }


def _write(out: Path, records: list[dict[str, Any]], summary: dict[str, Any]) -> None:
    """``results.jsonl`` and ``summary.json`` (tagged ``benchmark: partnr``), each
    replaced whole."""
    from planproof.boundary import replace_files

    replace_files(
        out,
        {
            "results.jsonl": (json.dumps(r) + "\n" for r in records),
            "summary.json": (json.dumps({"benchmark": "partnr", **summary}, indent=2) + "\n",),
        },
    )


def _table(records: list[dict[str, Any]], summary: Mapping[str, Any], mismatches: int) -> None:
    from rich.table import Table

    from planproof.commands.console import stdout_console

    table = Table(title="PARTNR evaluation", expand=True)
    for col, width in (("episode", 7), ("plan", 12), ("S", 1), ("PC", 4), ("steps", 5),
                       ("cycles", 6), ("error", 10)):  # fmt: skip
        table.add_column(col, no_wrap=True, min_width=width, overflow="ellipsis")
    table.add_column("why", no_wrap=True, overflow="ellipsis", ratio=1)
    for r in records:
        err = r["error"]
        why = r["explanation"].splitlines()[1:2] or [""]
        mark = "" if not r.get("expect_mismatch") else " (!)"
        table.add_row(
            r["episode_id"],
            r["plan"] + mark,
            "1" if r["success"] else "0",
            f"{r['percent_complete']:.2f}",
            str(r["steps"]),
            str(r["planning_cycles"]),
            f"{err['error_type']}@{err['step'] + 1}" if err else "",  # 1-based in text
            why[0].strip(" -"),
        )
    console = stdout_console()
    console.print(table)
    console.print(
        ", ".join(
            f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
            for k, v in summary.items()
            if isinstance(v, int | float)  # the failure counts: in --json and summary.json
        )
    )
    for note in summary.get("notes", []):
        console.print(f"note: {note}")
    ivs = summary.get("intervals", {})
    if ivs:
        console.print(
            "95 % intervals: "
            + ", ".join(f"{k} [{v['low']:.3f}, {v['high']:.3f}]" for k, v in ivs.items())
        )
    if mismatches:
        console.print(f"{mismatches} plan(s) differ from their expect block")
