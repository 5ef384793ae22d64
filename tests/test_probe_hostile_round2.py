"""Issue 30, the bad-input probe's second round: each row of the issue (and more cases of
each kind) as a test. Special files are refused unread and named; ``verify --cases``
prints one line per case whatever a line holds; a summary's huge integer is a clear error;
``--concurrency`` is clamped; deep type chains are walked without recursion; PDDL names
outside ASCII read the same in a plan as in a domain. CPU-bounded: no verdict reads the
wall clock."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planproof.cli import main

ROOT = Path(__file__).resolve().parent.parent

BLOCKS_DOMAIN = (
    "(define (domain bw) (:requirements :strips) "
    "(:predicates (on ?x ?y) (clear ?x) (holding ?x) (handempty) (ontable ?x)) "
    "(:action pick-up :parameters (?x) :precondition (and (clear ?x) (ontable ?x) (handempty)) "
    ":effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x))))"
)
BLOCKS_PROBLEM = (
    "(define (problem p) (:domain bw) (:objects a) "
    "(:init (clear a) (ontable a) (handempty)) (:goal (holding a)))"
)

RUN_PLANNER = [
    "run", "--model", "planner", "--module", "action-sequencing", "--dataset", "virtualhome",
]  # fmt: skip


def _main(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _cli(*argv: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """A real process (a regression that blocks on a FIFO must not hang the suite: the
    timeout is a guard, never the verdict)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "planproof.cli", *argv],
        check=False,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        input=stdin,
    )


@pytest.fixture()
def blocks(tmp_path: Path) -> Path:
    (tmp_path / "d.pddl").write_text(BLOCKS_DOMAIN, encoding="utf-8")
    (tmp_path / "p.pddl").write_text(BLOCKS_PROBLEM, encoding="utf-8")
    (tmp_path / "plan.txt").write_text("(pick-up a)\n", encoding="utf-8")
    return tmp_path


# --- special files --------------------------------------------------------------------


@pytest.mark.parametrize("role", ["--domain", "--problem", "--plan"])
def test_verify_refuses_a_fifo_at_once_naming_it(blocks: Path, role: str) -> None:
    fifo = blocks / "fifo"
    os.mkfifo(fifo)
    argv = {"--domain": "d.pddl", "--problem": "p.pddl", "--plan": "plan.txt", role: "fifo"}
    proc = _cli("verify", *[x for kv in argv.items() for x in kv], cwd=blocks)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("planproof: error: fifo: is a FIFO (named pipe)")


def test_plan_refuses_a_fifo_problem(blocks: Path) -> None:
    os.mkfifo(blocks / "fifo")
    proc = _cli("plan", "--domain", "d.pddl", "--problem", "fifo", "--json", cwd=blocks)
    assert proc.returncode == 2
    doc = json.loads(proc.stdout)
    assert doc["error"] == "not-a-file" and doc["source"] == "fifo"


def test_report_and_reproduce_refuse_a_fifo_summary(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    os.mkfifo(run / "summary.json")
    proc = _cli(
        "reproduce", "eai", "--run", str(run), "--modules", "goal-interpretation", cwd=tmp_path
    )
    assert proc.returncode == 2 and "summary.json: is a FIFO" in proc.stderr
    proc = _cli("report", str(run), "--output", str(tmp_path / "out"), cwd=tmp_path)
    assert proc.returncode == 2 and "FIFO" in proc.stderr, proc.stderr


def test_evaluate_refuses_a_fifo_responses_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "answers.json")
    proc = _cli(
        "evaluate",
        "action-sequencing",
        "--dataset",
        "virtualhome",
        "--responses",
        "answers.json",
        "--output",
        "out",
        cwd=tmp_path,
    )
    assert proc.returncode == 2 and "answers.json: is a FIFO" in proc.stderr, proc.stderr


# --- verify --cases: one line per case --------------------------------------------------


def _case_lines(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_cases_file_that_is_a_fifo_is_one_line(blocks: Path) -> None:
    os.mkfifo(blocks / "cases.jsonl")
    proc = _cli("verify", "--cases", "cases.jsonl", cwd=blocks)
    assert proc.returncode == 2
    (line,) = _case_lines(proc.stdout)
    assert line["error"] == "not-a-file" and "FIFO" in str(line["message"])


def test_every_case_gets_one_line_whatever_it_holds(blocks: Path) -> None:
    os.mkfifo(blocks / "fifo.pddl")
    good = {"domain": "d.pddl", "problem": "p.pddl", "plan": "(pick-up a)"}
    lines = [
        json.dumps(good).encode(),
        b"[" * 100_000 + b"]" * 100_000,  # deep nesting
        b'{"a": ' * 5000 + b"1" + b"}" * 5000,
        b"\x00\x01\x02binary\xff\xfe",
        b"\xc3\x28 invalid utf-8",
        json.dumps({**good, "domain": "/dev/zero"}).encode(),
        json.dumps({**good, "problem": "/dev/urandom"}).encode(),
        json.dumps({"domain": "d.pddl", "problem": "p.pddl", "plan_file": "/dev/urandom"}).encode(),
        json.dumps({**good, "domain": "fifo.pddl"}).encode(),
        json.dumps({**good, "domain": "."}).encode(),
        json.dumps({**good, "domain": "missing.pddl"}).encode(),
        b'{"n": ' + b"9" * 5000 + b"}",
        b"[1, 2]",
        b"not json",
        json.dumps({**good, "plan": "(pick-up a"}).encode(),
        json.dumps(good).encode(),
    ]
    (blocks / "cases.jsonl").write_bytes(b"\n".join(lines) + b"\n\n")
    start = time.process_time()
    code, out, err = _main("verify", "--cases", str(blocks / "cases.jsonl"))
    assert time.process_time() - start < 30
    rows = _case_lines(out)
    assert [r["id"] for r in rows] == [f"line {n}" for n in range(1, len(lines) + 1)]
    assert code == 2 and "16 plans: 2 valid, 0 invalid, 14 bad input" in err
    assert rows[0]["valid"] is True and rows[-1]["valid"] is True
    by_line = {int(str(r["id"]).split()[1]): r for r in rows}
    assert by_line[2]["error"] == by_line[3]["error"] == "too-deep"
    assert by_line[4]["error"] == "binary"
    assert by_line[5]["error"] == "not-utf8"
    for n, path in ((6, "/dev/zero"), (7, "/dev/urandom"), (8, "/dev/urandom")):
        assert by_line[n]["error"] == "not-a-file" and by_line[n]["source"] == path
        assert "character device" in str(by_line[n]["message"])
    assert "FIFO" in str(by_line[9]["message"]) and "directory" in str(by_line[10]["message"])
    assert by_line[11]["error"] == "not-found"
    assert by_line[12]["error"] == "not-json" and by_line[13]["error"] == "bad-input"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32"])
def test_a_utf16_cases_file_is_one_clear_error(blocks: Path, encoding: str) -> None:
    good = json.dumps({"domain": "d.pddl", "problem": "p.pddl", "plan": "(pick-up a)"})
    (blocks / "cases.jsonl").write_bytes(f"{good}\n{good}\n".encode(encoding))
    code, out, _ = _main("verify", "--cases", str(blocks / "cases.jsonl"))
    (row,) = _case_lines(out)
    assert code == 2 and row["error"] == "wrong-encoding" and "UTF-" in str(row["message"])


def test_a_binary_cases_file_gives_lines_not_a_traceback(blocks: Path) -> None:
    (blocks / "cases.jsonl").write_bytes(os.urandom(4096).replace(b"\n", b"\n\x00"))
    code, out, _ = _main("verify", "--cases", str(blocks / "cases.jsonl"))
    rows = _case_lines(out)
    assert code == 2 and rows and all(r["ok"] is False for r in rows)


def test_many_cases_keep_one_line_each(blocks: Path) -> None:
    good = json.dumps({"domain": "d.pddl", "problem": "p.pddl", "plan": "(pick-up a)"})
    (blocks / "cases.jsonl").write_text((good + "\n") * 3000, encoding="utf-8")
    code, out, _ = _main("verify", "--cases", str(blocks / "cases.jsonl"))
    assert code == 0 and out.count("\n") == 3000


def test_stdin_plan_is_bounded_and_decoded(blocks: Path) -> None:
    proc = _cli(
        "verify",
        "--domain",
        "d.pddl",
        "--problem",
        "p.pddl",
        "--plan",
        "-",
        cwd=blocks,
        stdin="(pick-up a)\n",
    )
    assert proc.returncode == 0 and "VALID" in proc.stdout


# --- reproduce --run with a huge integer ------------------------------------------------


@pytest.mark.parametrize("number", ["9" * 4000, "1e999", "Infinity", "NaN"])
def test_reproduce_run_summary_with_a_huge_number(tmp_path: Path, number: str) -> None:
    (tmp_path / "summary.json").write_text(
        '{"module": "goal-interpretation", "goal_evaluation": {"overall": {"f1": ' + number + "}}}",
        encoding="utf-8",
    )
    code, _, err = _main(
        "reproduce", "eai", "--run", str(tmp_path), "--modules", "goal-interpretation"
    )
    assert code == 2
    assert "$.goal_evaluation.overall.f1" in err and "not a finite number" in err


# --- worker counts ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        [*RUN_PLANNER, "--concurrency"],
        ["demo", "--concurrency"],
        ["evaluate", "partnr", "--workers"],
        ["reproduce", "eai", "--workers"],
    ],
)
@pytest.mark.parametrize("value", ["1000000000", "1000000", "1025"])
def test_huge_worker_counts_are_refused_naming_the_option(argv: list[str], value: str) -> None:
    code, out, err = _main(*argv, value, "--json")
    assert code == 2 and err == ""
    doc = json.loads(out)
    assert f"{argv[-1]}: {value} is over the limit of 1024" in doc["message"]


def test_local_processes_are_clamped_to_the_cpus() -> None:
    from planproof.boundary.limits import LOCAL_WORKERS_PER_CPU, MAX_WORKERS
    from planproof.executor import ExecutorConfig, open_executor
    from planproof.executor.config import cpu_count

    with open_executor(ExecutorConfig("local", workers=MAX_WORKERS), tasks=10**6) as ex:
        assert ex.workers == LOCAL_WORKERS_PER_CPU * cpu_count()  # type: ignore[attr-defined]


# --- deep type chains, constants that clash -------------------------------------------


def _type_chain(tmp_path: Path, depth: int) -> list[str]:
    types = " ".join(f"t{i + 1} - t{i}" for i in range(depth - 1))
    (tmp_path / "d.pddl").write_text(
        f"(define (domain d) (:requirements :strips :typing) (:types {types}) "
        "(:predicates (p ?x - t0)) "
        "(:action a :parameters (?x - t0) :precondition (p ?x) :effect (not (p ?x))))",
        encoding="utf-8",
    )
    (tmp_path / "p.pddl").write_text(
        f"(define (problem q) (:domain d) (:objects o - t{depth - 1}) (:init (p o)) "
        "(:goal (not (p o))))",
        encoding="utf-8",
    )
    (tmp_path / "plan.txt").write_text("(a o)\n", encoding="utf-8")
    d, p = str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl")
    return ["--domain", d, "--problem", p]


@pytest.mark.parametrize("command", ["verify", "plan"])
@pytest.mark.parametrize("depth", [50_000, 101])
def test_a_deep_type_chain_is_a_clear_error_at_once(
    tmp_path: Path, command: str, depth: int
) -> None:
    argv = _type_chain(tmp_path, depth)
    if command == "verify":
        argv += ["--plan", str(tmp_path / "plan.txt")]
    start = time.process_time()
    code, _, err = _main(command, *argv)
    assert time.process_time() - start < 20
    assert code == 2 and "levels below the root type, over the limit of 100" in err


def test_a_type_chain_at_the_limit_is_verified(tmp_path: Path) -> None:
    argv = _type_chain(tmp_path, 100)
    code, out, _ = _main("verify", *argv, "--plan", str(tmp_path / "plan.txt"))
    assert code == 0 and "VALID: 1 of 1" in out


def test_ancestors_of_a_long_chain_are_linear() -> None:
    from planproof.pddl.schema import Domain

    n = 200_000
    types: dict[str, str | None] = {"object": None, "t0": "object"}
    types.update({f"t{i + 1}": f"t{i}" for i in range(n)})
    types["loop"] = "loop2"
    types["loop2"] = "loop"
    domain = Domain("d", types, {}, {})
    start = time.process_time()
    assert len(domain.ancestors(f"t{n}")) == n + 2
    assert domain.ancestors("loop") == ("loop", "loop2")
    assert time.process_time() - start < 5


def test_a_constant_redeclared_with_another_type_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "d.pddl").write_text(
        "(define (domain d) (:requirements :strips :typing) (:types table block) "
        "(:constants a - table) (:predicates (p ?x - block)) "
        "(:action pick :parameters (?x - block) :precondition (p ?x) :effect (not (p ?x))))",
        encoding="utf-8",
    )
    (tmp_path / "p.pddl").write_text(
        "(define (problem q) (:domain d) (:objects a - block) (:init (p a)) (:goal (not (p a))))",
        encoding="utf-8",
    )
    (tmp_path / "plan.txt").write_text("(pick a)\n", encoding="utf-8")
    argv = ["--domain", str(tmp_path / "d.pddl"), "--problem", str(tmp_path / "p.pddl")]
    code, out, _ = _main("verify", *argv, "--plan", str(tmp_path / "plan.txt"), "--json")
    doc = json.loads(out)
    assert code == 2 and doc["error"] == "problem-does-not-fit"
    assert "object a is declared as block in the problem but as table" in doc["message"]
    code, _, err = _main("plan", *argv)
    assert code == 2 and "declared as block in the problem but as table" in err
    # the same type twice is no conflict
    (tmp_path / "p.pddl").write_text(
        "(define (problem q) (:domain d) (:objects a - table b - block) (:init (p b)) "
        "(:goal (not (p b))))",
        encoding="utf-8",
    )
    (tmp_path / "plan.txt").write_text("(pick b)\n", encoding="utf-8")
    code, _, _ = _main("verify", *argv, "--plan", str(tmp_path / "plan.txt"))
    assert code == 0


# --- names outside ASCII: one rule for domains, problems and plans ---------------------

UNICODE_DOMAIN = """(define (domain u) (:requirements :strips)
 (:predicates (tenu ?x) (libre ?x))
 (:action prendré :parameters (?x) :precondition (libre ?x)
   :effect (and (tenu ?x) (not (libre ?x))))
 (:action 拿起 :parameters (?objet) :precondition (libre ?objet)
   :effect (and (tenu ?objet) (not (libre ?objet))))
 (:action 🤖pick :parameters (?x) :precondition (libre ?x)
   :effect (and (tenu ?x) (not (libre ?x)))))"""
UNICODE_PROBLEM = """(define (problem q) (:domain u) (:objects á 杯子 🍎 café_1)
 (:init (libre á) (libre 杯子) (libre 🍎) (libre café_1))
 (:goal (and (tenu á) (tenu 杯子) (tenu 🍎) (tenu café_1))))"""


@pytest.mark.parametrize(
    "plan",
    [
        "(prendré á)\n(拿起 杯子)\n(🤖pick 🍎)\n(prendré café_1)\n",
        "prendré á\n拿起 杯子\n🤖pick(🍎)\nprendré(café_1)\n",
        '["prendré á", ["拿起", "杯子"], {"action": "🤖pick", "args": ["🍎"]}, "prendré café_1"]',
        "Plan:\n1. (prendré á)\n2. (拿起 杯子)\n3. (🤖pick 🍎) ; robot\n4. (prendré café_1)\n",
    ],
)
def test_a_plan_names_what_the_domain_declares(tmp_path: Path, plan: str) -> None:
    (tmp_path / "d.pddl").write_text(UNICODE_DOMAIN, encoding="utf-8")
    (tmp_path / "p.pddl").write_text(UNICODE_PROBLEM, encoding="utf-8")
    (tmp_path / "plan.txt").write_text(plan, encoding="utf-8")
    argv = ["--domain", str(tmp_path / "d.pddl"), "--problem", str(tmp_path / "p.pddl")]
    code, out, err = _main("verify", *argv, "--plan", str(tmp_path / "plan.txt"))
    assert code == 0 and "VALID: 4 of 4 steps executed" in out, err
    code, out, _ = _main("plan", *argv, "--engine", "pyperplan")
    assert code == 0 and "check: valid" in out


def test_the_name_rule_is_one_for_every_reader(tmp_path: Path) -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from planproof.pddl.errors import PDDLSyntaxError
    from planproof.pddl.plan_io import PlanFormatError, read_plan
    from planproof.pddl.reader import read_problem
    from planproof.pddl.scanner import is_name

    @settings(max_examples=300, deadline=None)
    @given(st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=8))
    def agree(name: str) -> None:
        token = "".join(name.split()).strip("();")
        if not token or any(c in token for c in ";()?"):  # ? marks a variable
            return
        problem = f"(define (problem q) (:domain u) (:objects {token}) (:init) (:goal (and)))"
        try:
            read_problem(problem)
            problem_ok = True
        except PDDLSyntaxError:
            problem_ok = False
        try:
            plan_ok = read_plan(f"(go {token})") == (("go", (token,)),)
        except PlanFormatError:
            plan_ok = False
        assert problem_ok == plan_ok == is_name(token), token

    agree()
    for bad in ("ch@r", "a!", "x\u202ey", "1abc", "-a"):
        assert not is_name(bad)
    for good in ("prendré", "拿起", "🤖pick", "café_1", "agent.n.01_1", "pick-up", "_x"):
        assert is_name(good)


# --- an unreachable Ray address -------------------------------------------------------


def _closed_port() -> int:
    """A port nothing listens on (bound, then released)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _ray_commands(tmp_path: Path, *plan_options: str) -> list[list[str]]:
    """``plan`` (on a blocks task written into ``tmp_path``) and ``run``, without the
    executor options."""
    (tmp_path / "d.pddl").write_text(BLOCKS_DOMAIN, encoding="utf-8")
    (tmp_path / "p.pddl").write_text(BLOCKS_PROBLEM, encoding="utf-8")
    plan = ["plan", "--domain", "d.pddl", "--problem", "p.pddl", *plan_options]
    run = [
        "run", "--model", "planner", "--module", "action-sequencing", "--dataset",
        "virtualhome", "--limit", "1", "--output", "run", "--cache", "c.sqlite3",
    ]  # fmt: skip
    return [plan, run]


@pytest.mark.parametrize("scheme", ["", "ray://"])
def test_an_unreachable_ray_address_fails_at_once(tmp_path: Path, scheme: str) -> None:
    pytest.importorskip("ray")
    address = f"{scheme}127.0.0.1:{_closed_port()}"
    for argv in _ray_commands(tmp_path):
        # before: Ray retried for 871 s; _cli's 120 s guard fails a regression
        proc = _cli(*argv, "--executor", "ray", "--ray-address", address, "--json", cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        doc = json.loads(proc.stdout)
        assert f"cannot reach Ray at {address}" in doc["message"]
    assert not (tmp_path / "run" / "responses.jsonl").exists()


class _Impostor:
    """A loopback TCP server that accepts every connection and then either says nothing
    (``reply`` None, holding the connection open), says ``reply`` and holds it, or (with
    ``close``) says ``reply`` and hangs up: a process at a Ray address that is not Ray."""

    def __init__(self, reply: bytes | None = None, *, close: bool = False) -> None:
        import socket
        import threading

        self.reply, self.close = reply, close
        self.server = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.server.getsockname()[1]}"
        self.held: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:  # closed by __exit__
                return
            if self.reply is not None:
                conn.sendall(self.reply)
            if self.close:
                conn.close()
            else:
                self.held.append(conn)

    def __enter__(self) -> _Impostor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.close()
        for conn in self.held:
            conn.close()


IMPOSTORS: dict[str, tuple[bytes | None, bool]] = {
    "silent": (None, False),
    "garbage": (b"HTTP/1.1 400 Bad Request\r\n\r\n", False),
    "hangs-up": (b"", True),
    "short": (b"\x00\x00", False),
}


@pytest.mark.parametrize("kind", sorted(IMPOSTORS))
def test_a_ray_address_that_is_not_ray_is_refused_in_bounded_time(kind: str) -> None:
    """The greeting is judged on what comes back before the limit, not on a clock read:
    a silent peer never answers, so any limit refuses it."""
    from planproof.executor import ExecutorError
    from planproof.executor.config import check_reachable

    reply, close = IMPOSTORS[kind]
    with _Impostor(reply, close=close) as peer:
        for address in (peer.address, f"ray://{peer.address}"):
            with pytest.raises(ExecutorError, match="does not answer as Ray's gRPC server"):
                check_reachable(address, 0.5)


def test_an_http2_server_passes_the_greeting() -> None:
    """The greeting accepted is what a real HTTP/2 server (the h2 library's, as gRPC's)
    sends first; a real Ray head node's GCS port was checked by hand the same way
    (docs/limits.md)."""
    h2_connection = pytest.importorskip("h2.connection")
    h2_config = pytest.importorskip("h2.config")
    conn = h2_connection.H2Connection(h2_config.H2Configuration(client_side=False))
    conn.initiate_connection()
    from planproof.executor.config import check_reachable

    with _Impostor(conn.data_to_send()) as peer:
        check_reachable(peer.address, 5)
        check_reachable(f"ray://{peer.address}", 5)


def test_plan_and_run_refuse_a_silent_ray_address_with_exit_2(tmp_path: Path) -> None:
    """Issue 30: a process that accepts the connection but is not Ray made ``ray.init``
    wait without end; now exit 2 within the connect limit (10 s, or ``--timeout``)."""
    pytest.importorskip("ray")
    with _Impostor() as peer:
        for argv in _ray_commands(tmp_path, "--timeout", "3"):
            # _cli's 120 s guard fails a regression (ray.init waited without end)
            proc = _cli(
                *argv, "--executor", "ray", "--ray-address", peer.address, "--json", cwd=tmp_path
            )
            assert proc.returncode == 2, proc.stderr
            doc = json.loads(proc.stdout)
            assert "accepts connections but does not answer as Ray" in doc["message"]
            assert "Traceback" not in proc.stderr
    assert not (tmp_path / "run" / "responses.jsonl").exists()


def test_a_ray_address_that_is_not_an_address_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    from planproof.executor import ExecutorError
    from planproof.executor.config import check_reachable

    for bad in ("foo:bar", "nohost", "ray://:6379", "host:99999"):
        with pytest.raises(ExecutorError, match="is not HOST:PORT"):
            check_reachable(bad)
    check_reachable("auto")  # left to Ray: no socket named


# --- the probe's own special-file cases -----------------------------------------------


def test_every_file_argument_refuses_a_fifo_as_the_probe_runs_it(tmp_path: Path) -> None:
    """Each file argument of every command, given a FIFO (the probe's ``fifo`` cases:
    ``verify``, ``plan``, ``report``, ``evaluate``, ``ltl``, ``reproduce``... blocked
    forever before), in a fresh process judged by the probe's rules."""
    from tools.probe_hostile import cli_cases, make_fixtures, run_case

    make_fixtures(tmp_path, only=set())
    assert (tmp_path / "fifo").is_fifo()
    cases = [c for c in cli_cases() if c.name.endswith("| fifo")]
    assert len(cases) >= 20
    failed = []
    for case in cases:
        result = run_case(case, tmp_path, bound=120)  # the bound only guards a regression
        if result.status != "pass":
            failed.append((case.name, result.why, result.stderr_head))
    assert not failed


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
            st.just(json.dumps({"domain": "d.pddl", "problem": "p.pddl", "plan": "(pick-up a)"})),
            st.just("[" * 300 + "]" * 300),
            st.text(max_size=30).map(lambda t: json.dumps({"plan": t})),
        ).map(lambda x: x if isinstance(x, bytes) else x.encode()),
        min_size=1,
        max_size=12,
    )
)
def test_cases_lines_in_equal_result_lines_out(lines: list[bytes]) -> None:
    """Whatever bytes each line holds, every line that is not blank gets exactly one
    result line, in order (the first line may declare the whole file UTF-16/32)."""
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "d.pddl").write_text(BLOCKS_DOMAIN, encoding="utf-8")
        (d / "p.pddl").write_text(BLOCKS_PROBLEM, encoding="utf-8")
        (d / "cases.jsonl").write_bytes(b"\n".join(lines) + b"\n")
        code, out, _ = _main("verify", "--cases", str(d / "cases.jsonl"))
    rows = _case_lines(out)
    expected = _expected_ids(lines)
    if expected is None:  # a UTF-16/32 first line: one error for the whole file
        assert [r["error"] for r in rows] == ["wrong-encoding"] and code == 2
        return
    assert [r["id"] for r in rows] == expected
    bad = any(r["ok"] is False for r in rows) or not rows  # no case at all is bad input
    assert code == (2 if bad else 0)


def _expected_ids(lines: list[bytes]) -> list[str] | None:
    """The ids of the lines that are cases: every line but those that are blank text."""
    from planproof.boundary import InputError, decode

    out = []
    for n, raw in enumerate(lines, start=1):
        try:
            text = decode(raw + b"\n", source="cases")
        except InputError as err:
            if err.kind == "wrong-encoding" and n == 1:
                return None
            out.append(f"line {n}")
            continue
        if text.strip():
            out.append(f"line {n}")
    return out


@pytest.mark.parametrize("special", ["fifo", "/dev/null", "dir"])
def test_an_llm_cache_that_is_not_a_regular_file_is_refused(tmp_path: Path, special: str) -> None:
    from planproof.interface.llm.cache import CacheError, ResponseCache

    path = Path(special) if special.startswith("/") else tmp_path / special
    if special == "fifo":
        os.mkfifo(path)
    elif special == "dir":
        path.mkdir()
    with pytest.raises(CacheError, match="not a regular file"):
        ResponseCache(path)


def test_an_oversized_file_in_a_case_is_named_not_read(blocks: Path) -> None:
    from planproof.boundary.limits import MAX_FILE_BYTES

    with (blocks / "huge.pddl").open("wb") as fh:  # sparse: no disk space, no reading
        fh.truncate(MAX_FILE_BYTES + 1)
    good = {"domain": "d.pddl", "problem": "p.pddl", "plan": "(pick-up a)"}
    lines = [json.dumps({**good, "domain": "huge.pddl"}), json.dumps(good)]
    (blocks / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    start = time.process_time()
    code, out, _ = _main("verify", "--cases", str(blocks / "cases.jsonl"))
    assert time.process_time() - start < 10
    first, second = _case_lines(out)
    assert first["error"] == "too-large" and first["source"] == str(blocks / "huge.pddl")
    assert f"{MAX_FILE_BYTES + 1} bytes, over the limit" in str(first["message"])
    assert second["valid"] is True and code == 2


# --- third round: more of each kind -------------------------------------------------------


def test_a_symlink_to_a_fifo_or_a_device_is_refused_naming_the_link(blocks: Path) -> None:
    os.mkfifo(blocks / "fifo")
    (blocks / "to-fifo.pddl").symlink_to(blocks / "fifo")
    (blocks / "to-zero.pddl").symlink_to("/dev/zero")
    (blocks / "loop-a").symlink_to(blocks / "loop-b")
    (blocks / "loop-b").symlink_to(blocks / "loop-a")
    (blocks / "dangling").symlink_to(blocks / "nowhere")
    expected = {
        "to-fifo.pddl": "is a FIFO",
        "to-zero.pddl": "is a character device",
        "loop-a": "loop-a",
        "dangling": "no such file",
    }
    for link, why in expected.items():
        code, out, _ = _main(
            "verify", "--domain", str(blocks / link), "--problem", str(blocks / "p.pddl"),
            "--plan", str(blocks / "plan.txt"), "--json",
        )  # fmt: skip
        doc = json.loads(out)
        assert code == 2 and doc["source"] == str(blocks / link), doc
        assert why in doc["message"], doc
    (blocks / "cases.jsonl").symlink_to(blocks / "fifo")
    code, out, _ = _main("verify", "--cases", str(blocks / "cases.jsonl"))
    (row,) = _case_lines(out)
    assert code == 2 and row["error"] == "not-a-file" and "FIFO" in str(row["message"])


def test_a_file_that_grows_after_its_size_was_checked_is_still_bounded(tmp_path: Path) -> None:
    """The size check happens before the read; a file appended to in between is still
    read no further than the bound (the read itself asks for at most bound + 1 bytes)."""
    from planproof.boundary import InputError
    from planproof.boundary.text import open_regular, read_limited

    path = tmp_path / "growing.txt"
    path.write_bytes(b"x" * 500)
    with open_regular(path, max_bytes=1000) as fh:  # 500 bytes: accepted
        with path.open("ab") as writer:
            writer.write(b"y" * 1_000_000)
        with pytest.raises(InputError, match="over the limit of 1000 bytes") as info:
            read_limited(fh, source=str(path), max_bytes=1000)
    assert info.value.kind == "too-large"


def test_a_responses_file_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "answers.json").mkdir()
    code, out, _ = _main(
        "evaluate", "action-sequencing", "--dataset", "virtualhome", "--responses",
        str(tmp_path / "answers.json"), "--output", str(tmp_path / "out"), "--json",
    )  # fmt: skip
    doc = json.loads(out)
    assert code == 2 and "is a directory" in doc["message"], doc
    assert not (tmp_path / "out" / "results.jsonl").exists()


def test_cases_that_name_the_cases_file_or_each_other_get_one_line_each(blocks: Path) -> None:
    """A case naming the cases file itself as its domain, problem or plan file reads it
    once more as that file (it is not PDDL: that case's error), never recursively."""
    good = {"domain": "d.pddl", "problem": "p.pddl", "plan": "(pick-up a)"}
    lines = [
        {**good, "id": "self-domain", "domain": "cases.jsonl"},
        {**good, "id": "self-problem", "problem": "cases.jsonl"},
        {"id": "self-plan", "domain": "d.pddl", "problem": "p.pddl", "plan_file": "cases.jsonl"},
        {**good, "id": "other", "domain": "more.jsonl"},
        {**good, "id": "good"},
    ]
    (blocks / "cases.jsonl").write_text(
        "".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8"
    )
    (blocks / "more.jsonl").write_text(json.dumps({**good, "domain": "cases.jsonl"}) + "\n")
    start = time.process_time()
    code, out, err = _main("verify", "--cases", str(blocks / "cases.jsonl"))
    assert time.process_time() - start < 30
    rows = {str(r["id"]): r for r in _case_lines(out)}
    assert list(rows) == [str(x["id"]) for x in lines]
    assert code == 2 and rows["good"]["valid"] is True
    for name in ("self-domain", "self-problem", "other"):
        assert rows[name]["ok"] is False and rows[name]["error"], rows[name]
    assert rows["self-plan"]["ok"] is False, rows["self-plan"]  # JSON is not a plan
    assert err.startswith("planproof: error: 4 of 5 case(s) are bad input, first self-domain")


@pytest.mark.parametrize("where", ["domain", "problem", "plan"])
def test_a_nul_byte_in_a_pddl_name_is_binary_data_named(blocks: Path, where: str) -> None:
    files = {"domain": "d.pddl", "problem": "p.pddl", "plan": "plan.txt"}
    path = blocks / files[where]
    text = path.read_text(encoding="utf-8")
    name = {"domain": "pick-up", "problem": "handempty", "plan": "pick-up"}[where]
    path.write_bytes(text.replace(name, name[:3] + "\x00" + name[3:], 1).encode("utf-8"))
    code, out, _ = _main(
        "verify", "--domain", str(blocks / "d.pddl"), "--problem", str(blocks / "p.pddl"),
        "--plan", str(path if where == "plan" else blocks / "plan.txt"), "--json",
    )  # fmt: skip
    doc = json.loads(out)
    assert code == 2 and doc["error"] == "binary" and doc["source"] == str(path), doc


def test_a_nul_byte_in_a_plan_on_standard_input_is_refused(blocks: Path) -> None:
    proc = _cli(
        "verify", "--domain", "d.pddl", "--problem", "p.pddl", "--plan", "-", "--json",
        cwd=blocks, stdin="(pick\x00-up a)\n",
    )  # fmt: skip
    assert proc.returncode == 2 and json.loads(proc.stdout)["error"] == "binary", proc.stdout


def test_a_plan_of_a_million_steps_is_refused_up_front(blocks: Path) -> None:
    """10^6 steps (12 MB) is over the plan reader's MAX_LENGTH: refused before any step
    runs; a plan just under the bound (80,000 steps) is checked step by step and fails
    at its second step, all within a CPU budget."""
    from planproof.pddl.plan_io import MAX_LENGTH

    huge = blocks / "huge.txt"
    huge.write_text("(pick-up a)\n" * 1_000_000, encoding="utf-8")
    start = time.process_time()
    code, out, _ = _main(
        "verify", "--domain", str(blocks / "d.pddl"), "--problem", str(blocks / "p.pddl"),
        "--plan", str(huge), "--json",
    )  # fmt: skip
    doc = json.loads(out)
    assert code == 2 and doc["error"] == "too-long", doc
    assert f"{MAX_LENGTH}" in doc["message"] or f"{MAX_LENGTH:,}" in doc["message"], doc
    long = blocks / "long.txt"
    steps = MAX_LENGTH // len("(pick-up a)\n") - 1
    long.write_text("(pick-up a)\n" * steps, encoding="utf-8")
    code, out, _ = _main(
        "verify", "--domain", str(blocks / "d.pddl"), "--problem", str(blocks / "p.pddl"),
        "--plan", str(long), "--json",
    )  # fmt: skip
    doc = json.loads(out)
    assert code == 1 and doc["valid"] is False and doc["steps"] == steps, doc
    assert doc["error"]["step"] == 2
    assert time.process_time() - start < 60


def test_a_fifo_output_without_a_reader_is_refused_and_with_one_is_written(
    tmp_path: Path,
) -> None:
    """Opening a FIFO for writing waits for a reader (``evaluate housekeep
    --write-episodes FIFO`` hung); without one it is refused at once, with one (a
    process substitution such as ``>(gzip > f)``) the text goes through."""
    import threading

    from planproof.boundary import InputError, write_text

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="FIFO \\(named pipe\\) that no process reads"):
        write_text(fifo, "lost\n")
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    for _ in range(1000):  # the reader's open is what the writer needs
        try:
            write_text(fifo, "delivered\n")
            break
        except InputError:
            time.sleep(0.01)
    reader.join(timeout=60)
    assert got == [b"delivered\n"]
    episodes = str(ROOT / "planproof" / "examples" / "housekeep" / "real_episodes.jsonl")
    proc = _cli(
        "evaluate", "housekeep", episodes, "--write-episodes", str(fifo), "--json", cwd=tmp_path
    )
    assert proc.returncode == 2 and "no process reads" in json.loads(proc.stdout)["message"]
    from tools.probe_hostile import _run_dir

    _run_dir(tmp_path / "run", 3)  # a real small run, so the page is built and written
    os.mkfifo(tmp_path / "page.html")
    proc = _cli("report", "run", "--output", "page.html", "--json", cwd=tmp_path)
    assert proc.returncode == 2 and "no process reads" in json.loads(proc.stdout)["message"]
