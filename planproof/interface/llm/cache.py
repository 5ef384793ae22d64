"""A SQLite cache of finished LLM calls, written as each call completes.

Why SQLite in WAL mode: every :meth:`ResponseCache.put` is its own committed transaction,
so a run killed at any point (Ctrl-C, ``kill -9``) keeps every answer it had received,
and a rerun repeats no finished call. WAL lets another process read (or write) the same
file meanwhile without corrupting it. Failed calls are never stored: a rerun retries them.
Rows hold the request and the answer, never an API key or the endpoint (see
``docs/llm-client.md``).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from planproof.data.cache import cache_dir
from planproof.interface.llm.types import CACHE_FORMAT, Completion, Request, Usage

_BUSY_TIMEOUT_S = 30.0
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,             -- Request.key(): sha256 of the canonical request
    model TEXT NOT NULL,
    request BLOB NOT NULL,            -- canonical JSON of the Request, UTF-8
    text BLOB NOT NULL,               -- the answer, UTF-8 (surrogatepass: lossless)
    finish_reason TEXT,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    cost_usd REAL,                    -- NULL when litellm does not know the price
    attempts INTEGER NOT NULL,
    seconds REAL NOT NULL,
    created TEXT NOT NULL             -- ISO-8601 UTC time of the put
);
"""
_COLUMNS = (
    "key, model, request, text, finish_reason, prompt_tokens, completion_tokens, "
    "cost_usd, attempts, seconds, created"
)


class CacheError(Exception):
    """The cache file cannot be used (not a SQLite database, corrupt, another format,
    unwritable). The message names the file and what to do about it."""


def default_cache_path() -> Path:
    """``<planproof cache>/llm/responses.sqlite3`` (``$PLANPROOF_CACHE_DIR`` moves it)."""
    return cache_dir() / "llm" / "responses.sqlite3"


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _decode(data: bytes | str) -> str:
    return data if isinstance(data, str) else data.decode("utf-8", "surrogatepass")


class ResponseCache:
    """One row per finished call, keyed by :meth:`Request.key`.

    Storing a key again replaces its answer (a ``--refresh`` run asks again and later runs
    see the new answer); :meth:`get` after :meth:`put` returns what was put. Calls are
    serialised by a lock, so the object may also be shared by worker threads.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        if self.path.exists() and not self.path.is_file():  # SQLite would block on a FIFO
            raise CacheError(
                f"LLM cache {self.path}: not a regular file (a directory, FIFO or device); "
                "give a file path (it is created if missing)"
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CacheError(
                f"cannot create the directory of the LLM cache {self.path}: {exc}"
            ) from None
        try:
            # isolation_level=None: autocommit, each statement is committed on its own.
            self._db = sqlite3.connect(
                self.path, timeout=_BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise CacheError(f"cannot open the LLM cache {self.path}: {exc}") from None
        try:
            self._setup()
        except BaseException:
            self._db.close()
            raise

    def _fail(self, exc: sqlite3.Error, doing: str) -> CacheError:
        hint = (
            "; it is not a planproof response cache (or it is corrupt): "
            "move it away or choose another cache file"
            if isinstance(exc, sqlite3.DatabaseError)
            and not isinstance(exc, sqlite3.OperationalError)
            else ""
        )
        return CacheError(f"LLM cache {self.path}: cannot {doing}: {exc}{hint}")

    def _setup(self) -> None:
        try:
            row = self._db.execute("PRAGMA journal_mode=WAL").fetchone()
            self.journal_mode = str(row[0]).lower() if row else "unknown"
            self._db.execute("PRAGMA synchronous=NORMAL")  # durable across kills under WAL
            self._db.executescript(_SCHEMA)
            self._db.execute(
                "INSERT OR IGNORE INTO meta (name, value) VALUES ('format', ?)",
                (str(CACHE_FORMAT),),
            )
            found = self._db.execute("SELECT value FROM meta WHERE name = 'format'").fetchone()
            columns = {r[1] for r in self._db.execute("PRAGMA table_info(responses)")}
        except sqlite3.Error as exc:
            raise self._fail(exc, "open it") from None
        if found is None or found[0] != str(CACHE_FORMAT):
            version = None if found is None else found[0]
            raise CacheError(
                f"LLM cache {self.path} has format {version!r}, this planproof writes format "
                f"{CACHE_FORMAT}; move the file away or choose another cache file"
            )
        expected = {c.strip() for c in _COLUMNS.split(",")}
        if not expected <= columns:
            raise CacheError(
                f"LLM cache {self.path}: table 'responses' lacks columns "
                f"{sorted(expected - columns)}; it was not written by planproof"
            )

    # --- reading and writing ---------------------------------------------------------------

    def get(self, request: Request) -> Completion | None:
        """The stored answer to ``request`` (with ``cached=True``), or None."""
        with self._lock:
            try:
                row = self._db.execute(
                    "SELECT text, finish_reason, prompt_tokens, completion_tokens, cost_usd, "
                    "attempts, seconds FROM responses WHERE key = ?",
                    (request.key(),),
                ).fetchone()
            except sqlite3.Error as exc:
                raise self._fail(exc, "read") from None
        if row is None:
            return None
        text, finish, prompt_tokens, completion_tokens, cost, attempts, seconds = row
        try:
            return Completion(
                text=_decode(text),
                usage=Usage(int(prompt_tokens), int(completion_tokens)),
                cost_usd=None if cost is None else float(cost),
                attempts=int(attempts),
                seconds=float(seconds),
                cached=True,
                finish_reason=None if finish is None else str(finish),
            )
        except (TypeError, ValueError) as exc:
            raise CacheError(f"LLM cache {self.path}: malformed row for a request: {exc}") from None

    def put(self, request: Request, completion: Completion) -> None:
        """Store a finished call, committed before returning; replaces an earlier answer to
        the same request."""
        request_json = json.dumps(request.to_dict(), ensure_ascii=False, sort_keys=True)
        row = (
            request.key(),
            request.model,
            _encode(request_json),
            _encode(completion.text),
            completion.finish_reason,
            completion.usage.prompt_tokens,
            completion.usage.completion_tokens,
            completion.cost_usd,
            completion.attempts,
            completion.seconds,
            datetime.now(UTC).isoformat(timespec="seconds"),
        )
        with self._lock:
            try:
                self._db.execute(
                    f"INSERT OR REPLACE INTO responses ({_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
            except sqlite3.Error as exc:
                raise self._fail(exc, "write") from None

    def __contains__(self, request: object) -> bool:
        if not isinstance(request, Request):
            return False
        with self._lock:
            try:
                found = self._db.execute(
                    "SELECT 1 FROM responses WHERE key = ?", (request.key(),)
                ).fetchone()
            except sqlite3.Error as exc:
                raise self._fail(exc, "read") from None
        return found is not None

    def __len__(self) -> int:
        with self._lock:
            try:
                (count,) = self._db.execute("SELECT COUNT(*) FROM responses").fetchone()
            except sqlite3.Error as exc:
                raise self._fail(exc, "read") from None
        return int(count)

    def stats(self) -> dict[str, Any]:
        """Totals over the whole file: rows, rows per model, tokens and known cost."""
        with self._lock:
            try:
                rows, prompt, completion, cost, priced = self._db.execute(
                    "SELECT COUNT(*), COALESCE(SUM(prompt_tokens), 0), "
                    "COALESCE(SUM(completion_tokens), 0), SUM(cost_usd), COUNT(cost_usd) "
                    "FROM responses"
                ).fetchone()
                models = dict(
                    self._db.execute(
                        "SELECT model, COUNT(*) FROM responses GROUP BY model ORDER BY model"
                    ).fetchall()
                )
            except sqlite3.Error as exc:
                raise self._fail(exc, "read") from None
        return {
            "path": str(self.path),
            "journal_mode": self.journal_mode,
            "rows": int(rows),
            "models": {str(k): int(v) for k, v in models.items()},
            "tokens": {"prompt": int(prompt), "completion": int(completion)},
            "cost_usd": None if cost is None else float(cost),
            "rows_without_cost": int(rows) - int(priced),
        }

    # --- lifetime --------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.path)!r})"
