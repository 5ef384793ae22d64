"""Invisible characters in untrusted text, made visible before it reaches a page.

HTML escaping stops markup, but not the Unicode controls that reorder or hide text: a
right-to-left override (U+202E) in an LLM answer makes ``(grab cup)`` display as
``(puc barg)`` and can disguise what a plan does (the "Trojan Source" trick); C0/C1
control characters are invisible. Every report page passes through :func:`neutralise`,
which writes each such character as a visible ``\\u202e`` escape, so the page shows what
the text holds and the layout of the rest of the page cannot be reordered by it.
"""

from __future__ import annotations

import re

__all__ = ["BIDI_CONTROLS", "neutralise"]

BIDI_CONTROLS = (
    "\u061c\u200e\u200f"  # arabic letter mark, left-to-right and right-to-left marks
    "\u202a\u202b\u202c\u202d\u202e"  # embeddings, pop, overrides
    "\u2066\u2067\u2068\u2069"  # isolates
)
"""The Unicode bidirectional formatting characters (Unicode Standard Annex #9)."""

_INVISIBLE = re.compile(f"[{BIDI_CONTROLS}\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _visible(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


def neutralise(text: str) -> str:
    """``text`` with every bidirectional control and every control character other than
    tab, line feed and carriage return written as a visible ``\\uXXXX`` escape (plain
    ASCII, so it is safe anywhere in a page: element text, attributes, comments)."""
    return _INVISIBLE.sub(_visible, text)
