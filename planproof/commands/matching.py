"""How a responses file met a dataset's tasks — matched, unknown identifiers, unreadable
entries, repeated identifiers, tasks left without a response — told on stderr for every
``evaluate`` command, and bad input (exit 2) when nothing matched: no silent zeros."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from planproof.commands.errors import BadInput
from planproof.interface.identifiers import canonical_identifiers

SHOWN = 3
"""Examples shown per kind of problem on the terminal (all of them are in summary.json)."""


@dataclass(frozen=True)
class Matching:
    """Where each entry of a responses file went. ``scope`` is the task set being
    evaluated (the dataset, cut by ``--limit``, or the module's evaluated set);
    ``outside`` are known identifiers outside it and ``outside_reason`` says why."""

    source: str
    dataset: str
    entries: int
    matched: int
    scope: int
    unknown: tuple[str, ...] = ()
    outside: tuple[str, ...] = ()
    outside_reason: str = ""
    unreadable: tuple[str, ...] = ()
    duplicates: tuple[str, ...] = ()
    example_ids: tuple[str, ...] = ()
    renamed: tuple[str, ...] = ()

    @property
    def without_response(self) -> int:
        return self.scope - self.matched

    def to_dict(self) -> dict[str, Any]:
        return {
            "responses_read": self.entries,
            "matched": self.matched,
            "unknown_identifiers": list(self.unknown),
            "outside_scope": list(self.outside),
            "outside_reason": self.outside_reason,
            "unreadable_entries": list(self.unreadable),
            "file_notes": [*self.duplicates, *self.renamed],
        }

    def lines(self) -> list[str]:
        """What a person must know about the pairing (empty when every task matched)."""
        out: list[str] = []
        if self.unknown:
            out.append(
                f"{len(self.unknown)} identifier(s) in {self.source} are not {self.dataset} "
                f"tasks, skipped: {_some(self.unknown)} (task identifiers look like "
                f"{_some(self.example_ids)}; `planproof tasks --dataset {self.dataset}` "
                "lists them)"
            )
        if self.outside:
            out.append(
                f"{len(self.outside)} response(s) skipped, {self.outside_reason}: "
                f"{_some(self.outside)}"
            )
        if self.unreadable:
            out.append(
                f"{len(self.unreadable)} unreadable entry(ies) skipped: "
                + _some(self.unreadable, quote=False)
            )
        if self.duplicates:
            out.append(
                f"{len(self.duplicates)} repeated identifier(s), the first answer kept: "
                + _some(self.duplicates, quote=False)
            )
        out.extend(self.renamed)
        if self.matched and self.without_response:
            out.append(
                f"{self.without_response} of {self.scope} task(s) have no response and are "
                "not scored"
            )
        return out

    def require_some(self) -> None:
        """Bad input when no response matched a task of the evaluated set."""
        if self.matched:
            return
        if not self.entries:
            why = f"{self.source} holds no responses"
        else:
            why = (
                f"none of the {self.entries} response(s) in {self.source} matches a "
                f"{self.dataset} task"
            )
        raise BadInput(
            "; ".join([why, *self.lines()])
            + '. Each entry needs {"identifier": TASK_ID, "llm_output": TEXT}.',
            kind="no-match",
            detail={**self.to_dict(), "tasks_without_response": self.without_response},
        )


def _some(items: Sequence[str], *, quote: bool = True) -> str:
    shown = ("; " if not quote else ", ").join(repr(i) if quote else i for i in items[:SHOWN])
    return shown + (f" (+{len(items) - SHOWN} more)" if len(items) > SHOWN else "")


def match(
    responses: Any,
    *,
    source: str,
    dataset: str,
    known: Sequence[str],
    scope: Sequence[str],
    outside_reason: str,
) -> tuple[Matching, dict[str, Any]]:
    """Pair a :class:`planproof.interface.responses.ResponsesFile` with the tasks ``scope``
    (a subset of ``known``): the matching and the entries by identifier."""
    known_set, scope_set = set(known), set(scope)
    by_id, renamed = canonical_identifiers(responses.by_identifier(), known_set)
    matched = {i: e for i, e in by_id.items() if i in scope_set}
    unreadable = tuple(
        e.error.message for e in responses.entries if e.identifier is None and e.error is not None
    )
    m = Matching(
        source=source,
        dataset=dataset,
        entries=len(responses.entries) + len(responses.duplicates),
        matched=len(matched),
        scope=len(scope_set),
        unknown=tuple(i for i in by_id if i not in known_set),
        outside=tuple(i for i in by_id if i in known_set and i not in scope_set),
        outside_reason=outside_reason,
        unreadable=unreadable,
        duplicates=tuple(responses.notes),
        example_ids=tuple(scope[:SHOWN]),
        renamed=tuple(renamed),
    )
    return m, matched


def tell(lines: Sequence[str]) -> None:
    """Warnings on stderr, whatever the output format: stdout stays the result."""
    for line in lines:
        print(f"planproof: warning: {line}", file=sys.stderr)
