"""The options every command with CPU-bound batches shares: ``--executor local|ray``,
``--workers N`` and ``--ray-address``; see ``docs/scale-out.md``."""

from __future__ import annotations

import argparse
import importlib.util

from planproof.boundary.options import worker_count
from planproof.commands.errors import BadInput
from planproof.executor import EXECUTORS, Executor, ExecutorConfig, ExecutorError, open_executor
from planproof.executor.config import CONNECT_SECONDS, check_reachable


def add_executor_arguments(parser: argparse.ArgumentParser, *, workers: bool = True) -> None:
    """``workers=False`` for commands whose ``--concurrency`` already says how many."""
    group = parser.add_argument_group("where the work runs")
    group.add_argument(
        "--executor",
        choices=EXECUTORS,
        default="local",
        help="local: worker processes on this machine (default); ray: a Ray cluster "
        "(pip install 'planproof[ray]')",
    )
    if workers:
        group.add_argument(
            "--workers",
            type=worker_count,
            help="worker processes (default: every CPU here, or of the Ray cluster; "
            "1 runs in this process)",
        )
    group.add_argument(
        "--ray-address",
        metavar="ADDRESS",
        help="Ray cluster to use (default $RAY_ADDRESS; without either, a local Ray "
        "runtime is started)",
    )


def executor_config(args: argparse.Namespace) -> ExecutorConfig:
    """The configuration the options ask for (checked before any slow work starts)."""
    try:
        workers = args.workers if hasattr(args, "workers") else getattr(args, "concurrency", None)
        config = ExecutorConfig(args.executor, workers, args.ray_address)
    except ExecutorError as exc:
        raise BadInput(str(exc)) from None
    if config.kind == "ray" and importlib.util.find_spec("ray") is None:
        raise BadInput("--executor ray needs Ray: pip install 'planproof[ray]'")
    address = config.ray_address() if config.kind == "ray" else None
    if address is not None:  # an absent cluster fails here, before any work, within seconds
        limit = min(CONNECT_SECONDS, getattr(args, "timeout", None) or CONNECT_SECONDS)
        try:
            check_reachable(address, limit)
        except ExecutorError as exc:
            raise BadInput(str(exc)) from None
    return config


def open_configured(config: ExecutorConfig, *, tasks: int | None = None) -> Executor:
    """``open_executor``, with a missing Ray or an unreachable cluster as bad input."""
    try:
        return open_executor(config, tasks=tasks)
    except ExecutorError as exc:
        raise BadInput(str(exc)) from None
