"""``planproof evaluate housekeep``: replay Housekeep episodes and score them with the
paper's tidy-house metrics.

With no episode files it runs the bundled demo: 30 real Housekeep episodes × plans
(``planproof/examples/housekeep/real_episodes.jsonl``, each with the values the reference
formulas give as ``expected``), against the real Housekeep preference store shipped with
planproof. Each episode gets one JSON line (metrics,
per-object diagnosis, replay errors, Z3 goal check, oracle upper bound); the summary holds
mean ± standard error per metric. A malformed episode becomes an error record and the run
goes on. Exit status: 0 evaluated (and every ``expected`` value in the files matched), 1 an
``expected`` value differs (or, with ``--require-success``, an episode failed), 2 bad input.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from planproof.commands.errors import BadInput
from planproof.commands.executor_options import (
    add_executor_arguments,
    executor_config,
    open_configured,
)

EXIT_OK, EXIT_NO, EXIT_BAD_INPUT = 0, 1, 2
PLANS = ("oracle_first_correct", "half_done", "hold_last_misplaced", "nothing")
"""``reference_format.PLANS``, repeated here so the parser is built without importing the
simulator (``test_plans_match_the_reader`` keeps the two equal)."""
TOLERANCE = 1e-9
BATCH = 16
"""Episodes per executor task (one episode takes milliseconds; see docs/scale-out.md)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "episodes",
        nargs="*",
        type=Path,
        help="episode files (.json: one episode, a list, or {'episodes': [...]}; .jsonl; "
        "or the Housekeep reference's own <scene>.json.gz files, detected by their "
        "end_matrix); default: the bundled demo episodes",
    )
    parser.add_argument(
        "--plan",
        nargs="+",
        choices=PLANS,
        default=[PLANS[0]],
        help="the plan(s) replayed on the reference's own episode files, which carry none; "
        "one run per episode and plan (default: oracle_first_correct, every misplaced "
        "object to the first receptacle end_matrix marks correct)",
    )
    parser.add_argument(
        "--write-episodes",
        type=Path,
        default=None,
        metavar="FILE",
        help="also write the episodes read, in planproof's format (JSON Lines): the "
        "converter from the reference's files",
    )
    parser.add_argument(
        "--preferences",
        type=Path,
        default=None,
        help="preference store (.json or .csv); default: the real Housekeep annotations "
        "shipped with planproof",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=None,
        help="directory for episodes.jsonl (one record per episode) and summary.json",
    )
    parser.add_argument(
        "--rq-normalization",
        choices=("mean", "sum"),
        default="mean",
        help="RQ averaged over O_mi (default, range [0,1]) or the printed sum",
    )
    parser.add_argument(
        "--mrr",
        choices=("correct", "all"),
        default="correct",
        help="reciprocal rank averaged over the annotators who voted correct (default, as "
        "the reference code) or over all annotators",
    )
    parser.add_argument(
        "--no-goal-check", action="store_true", help="skip the Z3 satisfiability check"
    )
    parser.add_argument(
        "--require-success",
        action="store_true",
        help="exit 1 unless every episode reaches episode success",
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    add_executor_arguments(parser)


def _bundled_episodes() -> list[tuple[str, str]]:
    from importlib import resources

    folder = resources.files("planproof.examples").joinpath("housekeep")
    return sorted(
        (f"housekeep/{p.name}", p.read_text(encoding="utf-8"))
        for p in folder.iterdir()
        if p.name.endswith((".json", ".jsonl"))
    )


@dataclass(frozen=True, slots=True)
class UnreadableFile:
    """A file that could not be read or parsed as a whole: it becomes one error record and
    the other files are still scored."""

    message: str


def _read_all(path: Path) -> list[Any]:
    from planproof.simulators.housekeep.episode import episode_documents, read_text

    return list(episode_documents(read_text(path), str(path)))


def _documents(args: argparse.Namespace) -> list[tuple[str, int, Any, str]]:
    """(source, index, document, plan): one entry per document, and one per plan for the
    reference's own episodes; an unreadable file is one :class:`UnreadableFile` entry."""
    from planproof.simulators.housekeep.episode import episode_documents
    from planproof.simulators.housekeep.errors import HousekeepError
    from planproof.simulators.housekeep.reference_format import is_reference_document

    per_file: list[tuple[str, list[Any]]] = []
    if not args.episodes:
        per_file = [(n, list(episode_documents(t, n))) for n, t in _bundled_episodes()]
    for path in args.episodes:
        try:
            per_file.append((str(path), _read_all(path)))
        except HousekeepError as err:
            message = str(err) if str(path) in str(err) else f"{path}: {err}"
            per_file.append((str(path), [UnreadableFile(message)]))
    return [
        (name, i, doc, plan)
        for name, docs in per_file
        for i, doc in enumerate(docs)
        for plan in (args.plan if is_reference_document(doc) else [PLANS[0]])
    ]


def _write_episodes(path: Path, documents: list[tuple[str, int, Any, str]]) -> None:
    """The converter: every well-formed episode read, as one planproof-format JSON line
    (the malformed ones are reported by the scoring records instead)."""
    from planproof.boundary import write_text
    from planproof.simulators.housekeep.errors import HousekeepError

    lines = []
    for source, _, doc, plan in documents:
        try:
            episode = load_document(doc, plan=plan, source=source)
        except HousekeepError:
            continue
        lines.append(json.dumps(episode.to_json()) + "\n")
    write_text(path, "".join(lines), source="--write-episodes")


def load_document(doc: Any, *, plan: str = PLANS[0], source: str = "<input>") -> Any:
    """An episode document in planproof's format, or one of the reference's own episodes
    (with ``plan`` replayed on it) → :class:`Episode`; raises ``EpisodeFormatError``."""
    from planproof.simulators.housekeep.episode import episode_from_json
    from planproof.simulators.housekeep.reference_format import (
        is_reference_document,
        reference_episode,
    )

    if is_reference_document(doc):
        return reference_episode(doc, plan, source=source)
    return episode_from_json(doc)


def _reference_reading(
    episode: Any, outcome: Any, scores: Any, store: Any, variants: Any
) -> dict[str, Any] | None:
    """The reference's reading (``end_matrix``) beside planproof's, and where they part."""
    from planproof.metrics.housekeep import reading_differences, score_reference
    from planproof.simulators.housekeep.reference_format import verdict_disagreements

    theirs = score_reference(episode, outcome, store, variants)
    if theirs is None:
        return None
    diff = reading_differences(scores, theirs)
    return {
        "metrics": theirs.metrics(),
        "counts": {"misplaced": theirs.misplaced, "considered": theirs.considered},
        "objects_differ": diff["objects"],
        "metrics_differ": diff["metrics"],
        "disagreeing_pairs": [d.to_list() for d in verdict_disagreements(episode, store)],
    }


def evaluate_document(
    doc: Any,
    store: Any,
    variants: Any,
    *,
    goal_check: bool = True,
    plan: str = PLANS[0],
    source: str = "<input>",
) -> dict[str, Any]:
    """One episode document → its JSON record (raises ``EpisodeFormatError`` if malformed).
    ``expected`` values are the reference's, so they are compared with the reference's
    reading when the episode carries one, else with planproof's."""
    from planproof.metrics.housekeep import score_episode
    from planproof.simulators.housekeep.goal import check_goal, oracle_actions
    from planproof.simulators.housekeep.world import run

    episode = load_document(doc, plan=plan, source=source)
    outcome = run(episode)
    scores = score_episode(episode, outcome, store, variants)
    metrics = scores.metrics()
    reference = _reference_reading(episode, outcome, scores, store, variants)
    compared = reference["metrics"] if reference is not None else metrics
    mismatches = {
        k: {"expected": v, "got": compared[k]}
        for k, v in episode.expected.items()
        if not math.isclose(compared[k], v, rel_tol=0.0, abs_tol=TOLERANCE)
    }
    record: dict[str, Any] = {
        "id": episode.id,
        "ok": True,
        "description": episode.description,
        "actions": list(episode.actions),
        "metrics": metrics,
        "counts": {
            k: getattr(scores, k)
            for k in (
                "objects",
                "misplaced",
                "interacted",
                "considered",
                "picks_places",
                "min_picks_places",
            )
        },
        "objects": scores.to_dict()["per_object"],
        "replay": outcome.replay.to_dict(),
        "expected": dict(episode.expected),
        "mismatches": mismatches,
        "reference_reading": reference,
    }
    oracle_plan = oracle_actions(episode, store, mrr=variants.mrr)
    if oracle_plan is None:
        record["oracle"] = None
    else:
        best = score_episode(episode, run(episode, oracle_plan), store, variants)
        record["oracle"] = {
            "actions": list(oracle_plan),
            "rearrangement_quality": best.rearrangement_quality,
            "soft_object_success": best.soft_object_success,
            "episode_success": best.episode_success,
        }
    if goal_check:
        record["goal"] = check_goal(episode, store).to_dict()
    return record


def _aggregate(values: list[float]) -> dict[str, Any]:
    from planproof.metrics.housekeep import aggregate

    if not values:  # NaN is not JSON
        return {"mean": None, "stderr": None, "n": 0}
    a = aggregate(values)
    return {"mean": a.mean, "stderr": a.stderr, "n": a.n}


def _summary(records: list[dict[str, Any]], args: argparse.Namespace) -> dict[str, Any]:
    from planproof.metrics.housekeep import METRICS

    good = [r for r in records if r["ok"]]
    out: dict[str, Any] = {
        "benchmark": "housekeep",
        "episodes": len(records),
        "evaluated": len(good),
        "bad_input": len(records) - len(good),
        "metrics": {m: _aggregate([r["metrics"][m] for r in good]) for m in METRICS},
        "executable": sum(1 for r in good if r["replay"]["executable"]),
        "expectation_mismatches": sum(1 for r in good if r["mismatches"]),
        "variants": {"rq_normalization": args.rq_normalization, "mrr": args.mrr},
        "preferences": str(args.preferences) if args.preferences else "Housekeep (bundled)",
    }
    refs = [r["reference_reading"] for r in good if r.get("reference_reading")]
    if refs:
        out["reference_reading"] = {
            "episodes": len(refs),
            "metrics": {m: _aggregate([x["metrics"][m] for x in refs]) for m in METRICS},
            "episodes_differing": sum(1 for x in refs if x["metrics_differ"]),
            "objects_differing": sum(len(x["objects_differ"]) for x in refs),
            "disagreeing_pairs": sum(len(x["disagreeing_pairs"]) for x in refs),
            "pairs_explained_by_substring_rule": sum(
                1 for x in refs for p in x["disagreeing_pairs"] if p[3] is not None
            ),
        }
        out["notes"] = [_reference_note(out["reference_reading"])]
    if not args.no_goal_check:
        out["unsatisfiable_goals"] = sum(
            1 for r in good if not r["goal"]["satisfiable"] and not r["goal"]["unknown"]
        )
    return out


def _reference_note(ref: dict[str, Any]) -> str:
    """One sentence on how the reference's reading parts from planproof's."""
    return (
        f"reference reading (end_matrix): {ref['episodes_differing']} of {ref['episodes']} "
        f"episode(s) score differently; {ref['objects_differing']} object verdict(s) and "
        f"{ref['disagreeing_pairs']} (object, receptacle) pair(s) differ, "
        f"{ref['pairs_explained_by_substring_rule']} of them explained by the reference "
        "generator's substring rule (docs/housekeep.md §1)"
    )


def _print_table(records: list[dict[str, Any]], summary: dict[str, Any]) -> None:

    from planproof.commands.console import stdout_console

    short = {
        "episode_success": "ES",
        "object_success": "OS",
        "soft_object_success": "SOS",
        "rearrangement_quality": "RQ",
        "pick_place_efficiency": "PPE",
        "misplaced_found": "MOC",
        "map_coverage": "MC",
    }
    table = _metric_table("Housekeep episodes", short, "first error")
    for r in records:
        if not r["ok"]:
            table.add_row(
                str(r.get("id") or r["source"]), *["—"] * len(short), f"bad input: {r['message']}"
            )
            continue
        err = r["replay"]["error"]
        note = f"{err['error_type']} at step {err['step']}" if err else ""
        if r["mismatches"]:
            note += " (differs from expected: " + ", ".join(r["mismatches"]) + ")"
        table.add_row(r["id"], *(f"{r['metrics'][m]:.2f}" for m in short), note)
    _mean_row(table, summary["metrics"], short)
    console = stdout_console()
    console.print(table)
    ref = summary.get("reference_reading")
    if ref:
        _print_reference_table(console, records, ref, short)


def _metric_table(title: str, short: dict[str, str], last: str) -> Any:
    """An empty table: episode, one column per metric, then ``last``."""
    from rich.table import Table

    table = Table(title=title)
    table.add_column("episode")
    for s in short.values():
        table.add_column(s, justify="right")
    table.add_column(last)
    return table


def _mean_row(table: Any, agg: dict[str, Any], short: dict[str, str]) -> None:
    """The last row: mean ± standard error per metric."""
    table.add_row(
        "mean ± s.e.",
        *(
            "—" if agg[m]["n"] == 0 else f"{agg[m]['mean']:.2f}±{agg[m]['stderr']:.2f}"
            for m in short
        ),
        "",
    )


def _print_reference_table(
    console: Any, records: list[dict[str, Any]], ref: dict[str, Any], short: dict[str, str]
) -> None:
    """The reference's reading (its ``end_matrix``), and how often it parts from ours."""

    table = _metric_table(
        "Housekeep episodes, the reference's reading (end_matrix)",
        short,
        "differs from planproof's reading",
    )
    for r in records:
        x = r.get("reference_reading") if r["ok"] else None
        if not x:
            continue
        note = ", ".join(short[m] for m in x["metrics_differ"])
        if x["objects_differ"]:
            note += f" (objects judged apart: {', '.join(x['objects_differ'])})"
        table.add_row(r["id"], *(f"{x['metrics'][m]:.2f}" for m in short), note)
    _mean_row(table, ref["metrics"], short)
    console.print(table)
    console.print(_reference_note(ref))


def _document_id(doc: Any) -> str | None:
    if not isinstance(doc, dict):
        return None
    ident = doc.get("id", doc.get("episode_id"))  # planproof's id, or the reference's
    return str(ident) if isinstance(ident, str | int) and not isinstance(ident, bool) else None


def record_for(job: tuple[str, Any, Any, Any, bool, str]) -> dict[str, Any]:
    """One episode's record, or its error record: what a worker computes per episode."""
    from planproof.simulators.housekeep.errors import HousekeepError

    source, doc, store, variants, goal_check, plan = job
    if isinstance(doc, UnreadableFile):
        return {"id": None, "ok": False, "error": "bad-input", "message": doc.message}
    try:
        return evaluate_document(
            doc, store, variants, goal_check=goal_check, plan=plan, source=source
        )
    except HousekeepError as err:
        return {"id": _document_id(doc), "ok": False, "error": "bad-input", "message": str(err)}


def run(args: argparse.Namespace) -> int:
    from planproof.boundary import optional_output_lock

    # checked and held before the work: a second writer of --output is refused at once
    with optional_output_lock(args.output):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from planproof.boundary import replace_files
    from planproof.metrics.housekeep import Variants
    from planproof.simulators.housekeep.errors import HousekeepError
    from planproof.simulators.housekeep.preferences import default_store, load_store

    config = executor_config(args)
    try:
        store = load_store(args.preferences) if args.preferences else default_store()
        documents = _documents(args)
    except HousekeepError as err:
        return _bad_input(args, str(err))
    if not documents:
        return _bad_input(args, "no episodes given")
    if all(isinstance(doc, UnreadableFile) for _, _, doc, _ in documents):
        return _bad_input(args, "; ".join(doc.message for _, _, doc, _ in documents))
    variants = Variants(rq_normalization=args.rq_normalization, mrr=args.mrr)
    from planproof.executor import map_batched

    if args.write_episodes is not None:
        _write_episodes(args.write_episodes, documents)
    jobs = [
        (source, doc, store, variants, not args.no_goal_check, plan)
        for source, _, doc, plan in documents
    ]
    from planproof.commands.progress import progress_bar, running_total

    with (
        open_configured(config, tasks=-(-len(jobs) // BATCH)) as executor,
        progress_bar(f"scoring {len(jobs)} episodes", len(jobs)) as advance,
    ):
        outcomes = map_batched(
            executor, record_for, jobs, size=BATCH, on_done=running_total(advance)
        )
    records: list[dict[str, Any]] = []
    for (source, index, doc, _), outcome in zip(documents, outcomes, strict=True):
        if outcome.value is not None:
            rec = outcome.value
        else:
            failure = outcome.failure
            rec = {
                "id": _document_id(doc),
                "ok": False,
                "error": failure.kind if failure else "error",
                "message": failure.message if failure else "",
            }
        records.append({"source": source, "index": index, **rec})
    summary = _summary(records, args)
    if args.output is not None:
        replace_files(
            args.output,
            {
                "episodes.jsonl": (json.dumps(r, sort_keys=True) + "\n" for r in records),
                "summary.json": (json.dumps(summary, indent=2, sort_keys=True) + "\n",),
            },
        )
    if args.json:
        print(json.dumps({"summary": summary, "episodes": records}, indent=2, sort_keys=True))
    else:
        _print_table(records, summary)
    if summary["bad_input"]:
        bad = [r for r in records if not r["ok"]]
        first = bad[0] if bad else {}
        print(  # the other episodes were scored; this says why the status is still 2
            f"planproof: error: {summary['bad_input']} of {len(records)} episode(s) are bad "
            f"input, first {first.get('source')} #{first.get('index')}: {first.get('message')}",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    failed = args.require_success and any(
        r["metrics"]["episode_success"] < 1.0 for r in records if r["ok"]
    )
    return EXIT_NO if summary["expectation_mismatches"] or failed else EXIT_OK


def _bad_input(args: argparse.Namespace, message: str) -> int:
    """Bad input: raised for ``planproof.cli`` to present (exit status 2)."""
    raise BadInput(message)
