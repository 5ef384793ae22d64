"""``planproof compare-domains REF.pddl CAND.pddl [--problems P...] [--mapping FILE]``:
compare an LLM-written domain with a reference, operator by operator (Z3), and
cross-validate plans on the given problems (docs/compare-domains.md).

Exit 0 when the candidate is equivalent (and every plan cross-validates), 1 when it
differs or cannot be compared (a candidate that does not parse, a different domain: a
report, not an error), 2 on bad input (a missing file, an unreadable reference or mapping).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from planproof.commands.errors import BadInput


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("reference", type=Path, help="reference PDDL domain")
    parser.add_argument("candidate", type=Path, help="candidate PDDL domain (e.g. LLM-written)")
    parser.add_argument(
        "--problems", nargs="*", type=Path, default=[], help="PDDL problems for cross-validation"
    )
    parser.add_argument(
        "--mapping",
        type=Path,
        help='JSON {"predicates": {candidate: reference}, "actions": ..., "types": ..., '
        '"constants": ...} fixing names the alignment should not guess',
    )
    parser.add_argument(
        "--max-states",
        type=int,
        default=200_000,
        help="states the builtin planner may store per problem and domain (default 200000)",
    )
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    parser.add_argument(
        "--output",
        type=Path,
        help="also write summary.json and results.jsonl here (a section of planproof report)",
    )


def _read(path: Path) -> str:
    """A file through the input boundary (UTF-8, bounded in size, not a device); what
    cannot be read is bad input naming the file (presented by ``planproof.cli``)."""
    from planproof.boundary import read_text

    return read_text(path)


def run(args: argparse.Namespace) -> int:
    from planproof.pddl.compare.align import MappingError, read_mapping
    from planproof.pddl.compare.domains import compare_domains
    from planproof.pddl.compare.model import Verdict
    from planproof.pddl.compare.review import review_text

    if args.max_states < 1:
        raise BadInput("--max-states must be a positive number of states", kind="bad-option")
    mapping = None
    if args.mapping is not None:
        from planproof.boundary import read_json

        try:
            mapping = read_mapping(read_json(args.mapping))
        except MappingError as exc:
            raise BadInput(f"{args.mapping}: {exc}", kind="bad-mapping") from None
    result = compare_domains(
        _read(args.reference),
        _read(args.candidate),
        problems=[(p.name, _read(p)) for p in args.problems],
        mapping=mapping,
        max_states=args.max_states,
    )
    if result.error_kind == "reference":
        raise BadInput(f"{args.reference}: {result.error}", kind="bad-reference")
    if args.output is not None:
        _write(args.output, result, args.candidate.name)
    if args.json:
        print(json.dumps({"ok": True, **result.to_dict()}, indent=2))
    else:
        print(review_text(result), end="")
    plans_ok = all(p.reference_plan.valid and p.candidate_plan.valid for p in result.problems)
    return 0 if result.verdict is Verdict.EQUIVALENT and plans_ok else 1


def _write(out: Path, result: object, label: str) -> None:
    from planproof.pddl.compare.model import DomainComparison
    from planproof.pddl.compare.records import operator_records, summary_record

    assert isinstance(result, DomainComparison)
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps(summary_record(result, label), indent=2))
        lines = [json.dumps(r) for r in operator_records(result)]
        (out / "results.jsonl").write_text("".join(line + "\n" for line in lines))
    except OSError as exc:
        raise BadInput(f"{out}: {exc.strerror or exc}", kind="unwritable") from None
