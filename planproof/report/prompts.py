"""Prompt deduplication for the page. The EAI prompts of one module share most of their
text (role, vocabulary, worked example): about 88 % of the characters of 40 VirtualHome
action-sequencing prompts are paragraphs that occur in other prompts. A paragraph (text
between blank lines) that occurs in two or more distinct prompts is written once in a pool
at the end of the page and referenced from each prompt; a run of such paragraphs that
recurs as a whole is one reference. A few lines of script copy the text back in when a
drill-down opens (without script, each reference is a link to its paragraph)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

SEPARATOR = "\n\n"


@dataclass(frozen=True, slots=True)
class Segment:
    """Literal prompt text, or (``ref`` set) a pooled passage whose text is ``text``."""

    text: str
    ref: str | None = None

    @property
    def label(self) -> str:
        """What a reference shows before it is expanded."""
        first = self.text.split("\n", 1)[0]
        short = first if len(first) <= 40 else first[:37] + "..."
        lines = self.text.count("\n") + 1
        return f"[{short} · {lines} line{'s' if lines > 1 else ''}]"


def _runs(parts: list[str], shared: frozenset[str]) -> list[tuple[int, int]]:
    """Maximal ranges [i, j) of consecutive shared paragraphs."""
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(parts):
        if parts[i] in shared:
            j = i + 1
            while j < len(parts) and parts[j] in shared:
                j += 1
            out.append((i, j))
            i = j
        else:
            i += 1
    return out


class PromptPool:
    """The shared passages of a set of prompts; :meth:`segments` splits a prompt into
    literal text and references such that joining the texts gives the prompt back."""

    def __init__(self, prompts: Iterable[str], *, min_length: int = 80, min_count: int = 2):
        distinct = [p.split(SEPARATOR) for p in dict.fromkeys(prompts)]
        counts: Counter[str] = Counter()
        for parts in distinct:
            counts.update(set(parts))
        self.shared = frozenset(
            t for t, n in counts.items() if n >= min_count and len(t) >= min_length
        )
        runs: Counter[str] = Counter()
        for parts in distinct:
            runs.update(
                {SEPARATOR.join(parts[i:j]) for i, j in _runs(parts, self.shared) if j - i > 1}
            )
        self.shared_runs = frozenset(t for t, n in runs.items() if n >= min_count)
        self._used: dict[str, str] = {}

    def segments(self, prompt: str) -> tuple[Segment, ...]:
        parts = prompt.split(SEPARATOR)
        out: list[Segment] = []
        literal: list[str] = []

        def flush() -> None:
            if literal:
                out.append(Segment("".join(literal)))
                literal.clear()

        start = 0
        for i, j in _runs(parts, self.shared):
            literal.append(SEPARATOR.join(parts[start:i]))
            if i:
                literal.append(SEPARATOR)
            run = SEPARATOR.join(parts[i:j])
            pieces = [run] if run in self.shared_runs else parts[i:j]
            for k, piece in enumerate(pieces):
                if k:
                    literal.append(SEPARATOR)
                flush()
                out.append(Segment(piece, self._ref(piece)))
            if j < len(parts):
                literal.append(SEPARATOR)
            start = j
        literal.append(SEPARATOR.join(parts[start:]))
        flush()
        return tuple(s for s in out if s.text or s.ref)

    def _ref(self, text: str) -> str:
        ref = self._used.get(text)
        if ref is None:
            ref = f"p{len(self._used) + 1}"
            self._used[text] = ref
        return ref

    def used(self) -> list[tuple[str, str]]:
        """(id, text) of every pooled passage some prompt referenced, in first-use order."""
        return [(ref, text) for text, ref in self._used.items()]
