"""The one boundary for untrusted input (files, LLM text, command-line numbers).

Lowest layer: every reader above uses it, so decoding, nesting depth, size and numeric
options fail the same way everywhere, with an :class:`InputError` naming the input, the
place, the problem and what to do. The bounds live in :mod:`planproof.boundary.limits`
and are documented in ``docs/limits.md``.
"""

from __future__ import annotations

from planproof.boundary.errors import InputError, InputKind
from planproof.boundary.json_doc import (
    JsonLine,
    check_depth,
    json_documents,
    json_lines,
    loads,
    read_json,
)
from planproof.boundary.options import check_rlimit, check_seconds
from planproof.boundary.outputs import (
    optional_output_lock,
    output_dir,
    output_file,
    output_lock,
    replace_bytes,
    replace_files,
    replace_json,
    replace_lines,
    replace_text,
    write_text,
)
from planproof.boundary.text import (
    check_text,
    decode,
    open_regular,
    read_bytes,
    read_limited,
    read_text,
    surrogate_at,
)

__all__ = [
    "InputError",
    "InputKind",
    "JsonLine",
    "check_depth",
    "check_rlimit",
    "check_seconds",
    "check_text",
    "decode",
    "json_documents",
    "json_lines",
    "loads",
    "open_regular",
    "optional_output_lock",
    "output_dir",
    "output_file",
    "output_lock",
    "read_bytes",
    "read_json",
    "read_limited",
    "read_text",
    "replace_bytes",
    "replace_files",
    "replace_json",
    "replace_lines",
    "replace_text",
    "surrogate_at",
    "write_text",
]
