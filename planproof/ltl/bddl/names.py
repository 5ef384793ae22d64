"""BDDL names ↔ LTL names (documented in ``docs/data.md``).

A BDDL category ``jar.n.01`` becomes the LTL type ``jar_n_01`` (``.``/``-`` → ``_``); an
object ``jar.n.01_1`` (category + ``_`` + instance) becomes ``jar_n_01.1``; any other
object name is mapped like a category. The reverse maps ``lemma_p_NN`` back to the
WordNet form ``lemma.p.NN``.
"""

from __future__ import annotations

import re

from planproof.ltl.bddl.errors import error_at
from planproof.ltl.bddl.sexpr import SExpr
from planproof.ltl.printer import KEYWORDS

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
INSTANCE = re.compile(r"(?P<base>.+)_(?P<idx>[0-9]+)")
"""A BDDL instance name: ``base`` is the category, ``idx`` the instance number."""
_LTL_INSTANCE = re.compile(r"(?P<base>[A-Za-z_][A-Za-z0-9_]*)\.(?P<idx>[0-9]+)")
_SYNSET = re.compile(r"(?P<lemma>.+)_(?P<pos>[nvasr])_(?P<sense>[0-9]{2})")


def check_name(name: str, what: str, at: SExpr | None, text: str) -> str:
    """``name`` if the LTL grammar can read it back as a name; a ``bad-name`` error at
    ``at`` otherwise (``what`` says which kind of name, for the message)."""
    if not _NAME.fullmatch(name) or name.lower() in KEYWORDS:
        raise error_at(f"{what} {name!r} cannot be written as an LTL name", at, text, "bad-name")
    return name


def check_object_name(name: str, at: SExpr | None, text: str) -> None:
    """Check an LTL object name, whose instance suffix ``.N`` is allowed."""
    m = _LTL_INSTANCE.fullmatch(name)
    check_name(m["base"] if m else name, "object", at, text)


def ltl_category(bddl_category: str) -> str:
    """``jar.n.01`` → ``jar_n_01`` (``.`` and ``-`` become ``_``)."""
    return bddl_category.replace(".", "_").replace("-", "_")


def ltl_object(bddl_object: str) -> str:
    """``jar.n.01_1`` → ``jar_n_01.1``; a name without a ``_<digits>`` instance suffix is
    mapped like a category (``kitchen`` → ``kitchen``)."""
    m = INSTANCE.fullmatch(bddl_object)
    if m:
        return f"{ltl_category(m['base'])}.{m['idx']}"
    return ltl_category(bddl_object)


def bddl_category(ltl_type: str) -> str:
    """Inverse of :func:`ltl_category` for WordNet-shaped names: ``jar_n_01`` →
    ``jar.n.01``; other names are kept."""
    m = _SYNSET.fullmatch(ltl_type)
    return f"{m['lemma']}.{m['pos']}.{m['sense']}" if m else ltl_type


def bddl_object(ltl_name: str) -> str:
    """Inverse of :func:`ltl_object`: ``jar_n_01.1`` → ``jar.n.01_1``."""
    m = _LTL_INSTANCE.fullmatch(ltl_name)
    if m:
        return f"{bddl_category(m['base'])}_{m['idx']}"
    return bddl_category(ltl_name)
