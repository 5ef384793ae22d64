"""compare-domains over every shared IPC domain: generated mutations are found and named
at the right operator and literal; equivalent rewritings are called equivalent."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from planproof.ltl.ast import And, Atom, Const, Not, Or, Var, substitute, walk
from planproof.ltl.simplify import conj
from planproof.pddl.compare.domains import compare_domain_files, compare_domains
from planproof.pddl.compare.model import DomainComparison, Verdict
from planproof.pddl.compare.operators import conjuncts, text
from planproof.pddl.reader import DomainFile, read_domain_file
from planproof.pddl.schema import Add, Delete, Operator

IPC = Path(__file__).resolve().parents[1] / "data" / "ipc"


def _domain_files() -> list[Path]:
    out = []
    for d in sorted(p for p in IPC.iterdir() if p.is_dir() and p.name != "plans"):
        files = sorted(d.glob("*domain*.pddl"))
        if files:
            out.append(files[0])
    return out


DOMAINS = {p.parent.name: read_domain_file(p.read_text(), fold_case=True) for p in _domain_files()}
NAMES = sorted(DOMAINS)
SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


def _with_op(df: DomainFile, op: Operator) -> DomainFile:
    ops = {**df.domain.operators, op.name: op}
    return dataclasses.replace(df, domain=dataclasses.replace(df.domain, operators=ops))


def _lifted(f: object, op: Operator) -> str:
    assert not isinstance(f, str)
    return text(substitute(f, {p.name: f"?{p.name}" for p in op.params}))  # type: ignore[arg-type]


def _others_equivalent(res: DomainComparison, name: str) -> None:
    for o in res.operators:
        if o.reference != name:
            assert o.verdict is Verdict.EQUIVALENT, o


def test_every_ipc_domain_is_equivalent_to_itself() -> None:
    assert len(DOMAINS) == 19
    for name, df in DOMAINS.items():
        res = compare_domain_files(df, df)
        assert res.verdict is Verdict.EQUIVALENT, name
        assert all(m.how == "name" for m in res.alignment.matches)


@st.composite
def _op(draw: st.DrawFn) -> tuple[DomainFile, Operator]:
    df = DOMAINS[draw(st.sampled_from(NAMES))]
    op = draw(st.sampled_from(sorted(df.domain.operators.values(), key=lambda o: o.name)))
    return df, op


def _is_literal(f: object) -> bool:
    atom = f.body if isinstance(f, Not) else f
    return isinstance(atom, Atom) and atom.pred != "=" and not atom.pred.startswith("#")


@SETTINGS
@given(_op(), st.data())
def test_dropped_precondition_is_named(
    picked: tuple[DomainFile, Operator], data: st.DataObject
) -> None:
    df, op = picked
    cs = conjuncts(op.precondition)
    lits = [c for c in cs if _is_literal(c)]
    assume(lits)
    lit = data.draw(st.sampled_from(lits))
    atom = lit.body if isinstance(lit, Not) else lit
    rest = [c for c in cs if c != lit]
    assume(all(atom not in set(walk(c)) for c in rest))  # not restated elsewhere
    cand = _with_op(df, dataclasses.replace(op, precondition=conj(*rest)))
    res = compare_domain_files(df, cand)
    o = next(o for o in res.operators if o.reference == op.name)
    assert o.verdict is Verdict.WEAKER
    assert [(f.kind, f.literal) for f in o.findings] == [("missing-precondition", _lifted(lit, op))]
    assert o.findings[0].counterexample is not None
    _others_equivalent(res, op.name)
    assert res.verdict is Verdict.WEAKER


@SETTINGS
@given(_op(), st.data())
def test_added_effect_is_named(picked: tuple[DomainFile, Operator], data: st.DataObject) -> None:
    df, op = picked
    d = df.domain
    preds = [p for p, a in d.predicates.items() if len(a) <= len(op.params) and p not in d.derived]
    assume(preds)
    pred = data.draw(st.sampled_from(sorted(preds)))
    k = len(d.predicates[pred])
    args = data.draw(st.lists(st.sampled_from(op.params), min_size=k, max_size=k)) if k else []
    atom = Atom(pred, tuple(Var(p.name) for p in args))
    mentioned = {a for a in walk(op.precondition) if isinstance(a, Atom)}
    effect_atoms = {e.atom for e in op.effects if isinstance(e, Add | Delete)}
    assume(atom not in mentioned and atom not in effect_atoms)
    assume(all(isinstance(e, Add | Delete) or pred not in repr(e) for e in op.effects))
    cand = _with_op(df, dataclasses.replace(op, effects=(*op.effects, Add(atom))))
    res = compare_domain_files(df, cand)
    o = next(o for o in res.operators if o.reference == op.name)
    assert o.verdict is Verdict.INCOMPARABLE
    assert [(f.kind, f.literal) for f in o.findings] == [("extra-add", _lifted(atom, op))]
    _others_equivalent(res, op.name)


@SETTINGS
@given(_op(), st.data())
def test_add_turned_into_delete_is_named(
    picked: tuple[DomainFile, Operator], data: st.DataObject
) -> None:
    df, op = picked
    adds = [e for e in op.effects if isinstance(e, Add)]
    assume(adds)
    e = data.draw(st.sampled_from(adds))
    assume(sum(isinstance(x, Add | Delete) and x.atom == e.atom for x in op.effects) == 1)
    effects = tuple(Delete(e.atom) if x is e else x for x in op.effects)
    cand = _with_op(df, dataclasses.replace(op, effects=effects))
    res = compare_domain_files(df, cand)
    o = next(o for o in res.operators if o.reference == op.name)
    assert o.verdict is Verdict.INCOMPARABLE
    assert [(f.kind, f.literal) for f in o.findings] == [
        ("wrong-polarity", f"(not {_lifted(e.atom, op)})")
    ]
    _others_equivalent(res, op.name)


def _rename_predicate(df: DomainFile, old: str, new: str) -> DomainFile:
    from planproof.pddl.compare.align import _Renamer

    r = _Renamer({old: new}, {}, {})
    d = df.domain
    ops = {
        k: dataclasses.replace(
            op,
            precondition=r.formula(op.precondition),
            effects=tuple(r.effect(e) for e in op.effects),
        )
        for k, op in d.operators.items()
    }
    preds = {r.pred(p): a for p, a in d.predicates.items()}
    return dataclasses.replace(df, domain=dataclasses.replace(d, predicates=preds, operators=ops))


def _pddl(df: DomainFile) -> str:
    from planproof.pddl.writer import domain_to_pddl

    out = domain_to_pddl(df.domain)
    if df.constants:
        consts = " ".join(f"{c} - {t}" for c, t in df.constants.items())
        out = out.replace("  (:predicates", f"  (:constants {consts})\n  (:predicates", 1)
    return out


@SETTINGS
@given(st.sampled_from(NAMES), st.data())
def test_renamed_predicate_is_matched_by_use(name: str, data: st.DataObject) -> None:
    df = DOMAINS[name]
    used = sorted(
        {
            a.pred
            for op in df.domain.operators.values()
            for a in walk(op.precondition)
            if isinstance(a, Atom)
        }
        - {"="}
    )
    used = [p for p in used if not p.startswith("#") and p not in df.domain.derived]
    assume(used)
    pred = data.draw(st.sampled_from(used))
    cand = _rename_predicate(df, pred, "zz-renamed")
    res = compare_domain_files(df, cand)
    hit = [
        m for m in res.alignment.matches if m.kind == "predicate" and m.candidate == "zz-renamed"
    ]
    assert [(m.reference, m.how) for m in hit] == [(pred, "use")]
    assert res.verdict is Verdict.EQUIVALENT


@SETTINGS
@given(_op())
def test_dropped_action_is_named(picked: tuple[DomainFile, Operator]) -> None:
    df, op = picked
    ops = {k: v for k, v in df.domain.operators.items() if k != op.name}
    cand = dataclasses.replace(df, domain=dataclasses.replace(df.domain, operators=ops))
    res = compare_domain_files(df, cand)
    o = next(o for o in res.operators if o.reference == op.name)
    assert [f.kind for f in o.findings] == ["missing-operator"]
    _others_equivalent(res, op.name)
    assert res.verdict is Verdict.STRONGER


@SETTINGS
@given(_op(), st.data())
def test_swapped_parameters_are_named(
    picked: tuple[DomainFile, Operator], data: st.DataObject
) -> None:
    from planproof.pddl.compare.operators import _signature

    df, op = picked
    n = len(op.params)
    assume(2 <= n <= 6)
    i, j = data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
    params = list(op.params)
    params[i], params[j] = params[j], params[i]
    cand_op = dataclasses.replace(op, params=tuple(params))
    # a swap of two parameters the operator treats alike changes nothing: not a mutation
    ident = {p.name: f"?{q.name}" for p, q in zip(cand_op.params, op.params, strict=True)}
    own = {p.name: f"?{p.name}" for p in op.params}
    assume(_signature(cand_op, ident) != _signature(op, own))
    res = compare_domain_files(df, _with_op(df, cand_op))
    o = next(o for o in res.operators if o.reference == op.name)
    assert o.findings[0].kind == "swapped-parameters"
    assert o.verdict is Verdict.INCOMPARABLE
    _others_equivalent(res, op.name)


# --- equivalent rewritings -------------------------------------------------------------


@SETTINGS
@given(_op(), st.randoms(use_true_random=False))
def test_reordered_conjuncts_are_equivalent(picked: tuple[DomainFile, Operator], rnd) -> None:  # type: ignore[no-untyped-def]
    df, op = picked
    cs = list(conjuncts(op.precondition))
    effects = list(op.effects)
    rnd.shuffle(cs)
    rnd.shuffle(effects)
    cand = _with_op(df, dataclasses.replace(op, precondition=conj(*cs), effects=tuple(effects)))
    assert compare_domain_files(df, cand).verdict is Verdict.EQUIVALENT


def test_renamed_variables_are_equivalent() -> None:
    for name, df in DOMAINS.items():
        if df.domain.has_numbers:
            continue  # the writer has no text for action costs; the reader path is the same
        text_ = re.sub(r"\?([A-Za-z][\w-]*)", r"?renamed-\1", _pddl(df))
        cand = read_domain_file(text_, fold_case=True)
        res = compare_domain_files(df, cand)
        assert res.verdict is Verdict.EQUIVALENT, (name, res.findings)


@SETTINGS
@given(_op(), st.data())
def test_implied_precondition_added_or_removed_is_equivalent(
    picked: tuple[DomainFile, Operator], data: st.DataObject
) -> None:
    df, op = picked
    cs = conjuncts(op.precondition)
    assume(cs)
    lit = data.draw(st.sampled_from(cs))
    other = Atom("zz-unrelated", (Const("nothing"),))
    implied = Or((lit, other))  # implied by lit, which stays
    fuller = dataclasses.replace(op, precondition=conj(*cs, implied))
    preds = {**df.domain.predicates, "zz-unrelated": ("object",)}
    bigger = dataclasses.replace(
        df,
        domain=dataclasses.replace(
            df.domain, predicates=preds, operators={**df.domain.operators, op.name: fuller}
        ),
    )
    assert (
        compare_domain_files(df, bigger).operators[list(df.domain.operators).index(op.name)].verdict
        is Verdict.EQUIVALENT
    )
    assert (
        compare_domain_files(bigger, df).operators[list(df.domain.operators).index(op.name)].verdict
        is Verdict.EQUIVALENT
    )


@SETTINGS
@given(_op(), st.data())
def test_double_negation_is_equivalent(
    picked: tuple[DomainFile, Operator], data: st.DataObject
) -> None:
    df, op = picked
    cs = list(conjuncts(op.precondition))
    assume(cs)
    k = data.draw(st.integers(0, len(cs) - 1))
    cs[k] = Not(Not(cs[k]))
    cand = _with_op(
        df, dataclasses.replace(op, precondition=And(tuple(cs)) if len(cs) > 1 else cs[0])
    )
    assert compare_domain_files(df, cand).verdict is Verdict.EQUIVALENT


def test_double_negation_read_from_text_is_equivalent() -> None:
    ref = (IPC / "blocks" / "domain.pddl").read_text()
    cand = ref.replace("(clear ?x) (ontable ?x)", "(not (not (clear ?x))) (ontable ?x)", 1)
    assert cand != ref
    assert compare_domains(ref, cand).verdict is Verdict.EQUIVALENT


# --- bad candidates ---------------------------------------------------------------------


def test_unparsable_candidate_gets_a_report() -> None:
    ref = (IPC / "blocks" / "domain.pddl").read_text()
    res = compare_domains(ref, ref[: len(ref) // 2])
    assert res.error_kind == "parse" and res.verdict is None
    assert "candidate does not parse" in res.error


def test_undeclared_type_is_reported() -> None:
    ref = (IPC / "tpp" / "domain.pddl").read_text()
    cand = ref.replace("(?t - truck ?from ?to - place)", "(?t - lorry ?from ?to - place)", 1)
    assert cand != ref
    res = compare_domains(ref, cand)
    assert any("undeclared types: lorry" in n for n in res.alignment.notes)
    assert res.verdict is not Verdict.EQUIVALENT


def test_different_domain_gets_a_report() -> None:
    ref = (IPC / "blocks" / "domain.pddl").read_text()
    cand = (IPC / "rovers" / "domain.pddl").read_text()
    res = compare_domains(ref, cand)
    assert res.error_kind == "different-domain"
    assert "different domain" in res.error


def test_mapping_fixes_names() -> None:
    df = DOMAINS["blocks"]
    cand = _rename_predicate(df, "holding", "grasps")
    res = compare_domain_files(df, cand, mapping={"predicate": {"grasps": "holding"}})
    assert [(m.reference, m.how) for m in res.alignment.matches if m.candidate == "grasps"] == [
        ("holding", "mapping")
    ]


@pytest.mark.parametrize("name", ["blocks", "gripper", "miconic-simpleadl"])
def test_cross_validation_of_a_domain_with_itself(name: str) -> None:
    path = _domain_files()[NAMES.index(name)]
    problems = sorted(p for p in path.parent.glob("*.pddl") if "domain" not in p.name)[:2]
    ref = path.read_text()
    res = compare_domains(ref, ref, problems=[(p.name, p.read_text()) for p in problems])
    assert len(res.problems) == 2
    for p in res.problems:
        assert p.reference_plan.valid and p.candidate_plan.valid
        assert not p.solvable_under_one_only


def test_cross_validation_blames_the_operator_that_lost_an_effect() -> None:
    ref = (IPC / "blocks" / "domain.pddl").read_text()
    cand = ref.replace("(holding ?x)))", "))", 1)  # pick-up no longer adds (holding ?x)
    assert cand != ref
    problem = IPC / "blocks" / "probBLOCKS-10-0.pddl"
    res = compare_domains(ref, cand, problems=[(problem.name, problem.read_text())])
    pick = next(o for o in res.operators if o.reference == "pick-up")
    assert [(f.kind, f.literal) for f in pick.findings] == [("missing-add", "(holding ?x)")]
    (check,) = res.problems
    assert check.reference_plan.status == "solved" and not check.reference_plan.valid
    assert check.reference_plan.failed_step is not None
    assert check.reference_plan.blame in {"stack", "put-down"}
    assert check.candidate_plan.status == "unsolvable"
    assert check.solvable_under_one_only


# --- the command ------------------------------------------------------------------------


def test_command_reviews_and_exits_by_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from planproof.cli import main

    ref = IPC / "blocks" / "domain.pddl"
    cand = tmp_path / "cand.pddl"
    cand.write_text(ref.read_text().replace("(and (holding ?x) (clear ?y))", "(holding ?x)", 1))
    problem = IPC / "blocks" / "probBLOCKS-10-0.pddl"
    assert main(["compare-domains", str(ref), str(cand), "--problems", str(problem)]) == 1
    out = capsys.readouterr().out
    assert "stack: weaker" in out and "missing-precondition" in out and "(clear ?y)" in out
    assert main(["compare-domains", str(ref), str(ref), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "equivalent" and len(data["operators"]) == 4
    broken = tmp_path / "broken.pddl"
    broken.write_text("(define (domain x) (:action")
    assert main(["compare-domains", str(ref), str(broken), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["error_kind"] == "parse"
    assert main(["compare-domains", str(ref), str(tmp_path / "absent.pddl")]) == 2
    mapping = tmp_path / "map.json"
    mapping.write_text('{"verbs": {}}')
    assert main(["compare-domains", str(ref), str(ref), "--mapping", str(mapping)]) == 2


def test_report_shows_a_comparison_section(tmp_path: Path) -> None:
    from planproof.cli import main
    from planproof.report.html import build_report

    ref = IPC / "blocks" / "domain.pddl"
    cand = tmp_path / "cand.pddl"
    extra = "(:action sneak :parameters (?x) :precondition (clear ?x) :effect (holding ?x))"
    text_ = ref.read_text().replace("(and (holding ?x) (clear ?y))", "(holding ?x)", 1)
    cand.write_text(text_.rstrip().removesuffix(")") + extra + ")\n")
    out = tmp_path / "out"
    assert main(["compare-domains", str(ref), str(cand), "--output", str(out)]) == 1
    page = build_report([out])
    assert "Domain comparison — blocks" in page
    assert "missing-precondition" in page and "(clear ?y)" in page
    # A name that is not PDDL (markup in it) makes the candidate unreadable: the report
    # says why, with the markup escaped.
    hostile = extra.replace("sneak", "<b>sneak</b>")
    cand.write_text(text_.rstrip().removesuffix(")") + hostile + ")\n")
    bad = tmp_path / "bad"
    assert main(["compare-domains", str(ref), str(cand), "--output", str(bad)]) == 1
    page = build_report([bad])
    assert "does not parse" in page
    assert "<b>sneak</b>" not in page and "&lt;b&gt;sneak&lt;/b&gt;" in page


def test_action_costs_are_compared() -> None:
    ref = (IPC / "elevators-opt08-strips" / "domain.pddl").read_text()
    swapped = "(increase (total-cost) (travel-slow ?f2 ?f1))"
    cand = ref.replace("(increase (total-cost) (travel-slow ?f1 ?f2))", swapped, 1)
    res = compare_domains(ref, cand)
    (o,) = [o for o in res.operators if o.verdict is not Verdict.EQUIVALENT]
    assert o.reference == "move-up-slow"
    assert [(f.kind, f.literal) for f in o.findings] == [
        ("numeric-effect", "(increase (total-cost) (travel-slow ?f1 ?f2))")
    ]
    renamed = re.sub(r"\?f([12])", r"?floor\1", ref)
    assert compare_domains(ref, renamed).verdict is Verdict.EQUIVALENT


def test_hostile_quantifier_nesting_is_refused_not_expanded() -> None:
    body = "(p ?v0)"
    for i in range(12):
        body = f"(forall (?v{i} - object) (and (p ?v{i}) {body}))"
    ref = (
        "(define (domain d) (:predicates (p ?x) (q ?x)) "
        "(:action a :parameters (?x) :precondition (p ?x) :effect (q ?x)))"
    )
    cand = ref.replace(":precondition (p ?x)", f":precondition {body}")
    res = compare_domains(ref, cand)
    (o,) = res.operators
    assert o.verdict is Verdict.UNKNOWN
    assert o.findings[0].kind == "unsupported" and "expand to more than" in o.findings[0].message


def test_conditional_effects_are_compared_under_their_conditions() -> None:
    ref = (IPC / "miconic-simpleadl" / "domain.pddl").read_text()
    cand = ref.replace("(and (not (boarded ?p)) \n                             (served  ?p))",
                       "(not (boarded ?p))", 1)  # fmt: skip
    assert cand != ref
    (o,) = [o for o in compare_domains(ref, cand).operators if o.verdict is not Verdict.EQUIVALENT]
    assert [(f.operator, f.kind, f.literal, f.condition) for f in o.findings] == [
        ("stop", "missing-add", "(served ?p)", "(and (boarded ?p) (destin ?p ?f))")
    ]
    narrower = ref.replace("(when (and (origin ?p ?f) (not (served ?p)))", "(when (origin ?p ?f)")
    (o,) = [o for o in compare_domains(ref, narrower).operators if o.findings]
    assert [(f.kind, f.literal, f.condition) for f in o.findings] == [
        ("extra-add", "(boarded ?p)", "(origin ?p ?f)")
    ]


def test_wrong_arity_is_named_and_the_rest_still_compared() -> None:
    ref = (IPC / "gripper" / "domain.pddl").read_text()
    cand = ref.replace(":parameters  (?from ?to)", ":parameters  (?r ?from ?to)", 1).replace(
        "(at-robby ?from))\n", "(at-robby ?from) (room ?r))\n", 1
    )  # fmt: skip
    assert cand != ref
    (o,) = [o for o in compare_domains(ref, cand).operators if o.verdict is not Verdict.EQUIVALENT]
    assert o.verdict is Verdict.INCOMPARABLE
    assert [(f.kind, f.literal) for f in o.findings] == [
        ("wrong-arity", "(?r ?from ?to)"),
        ("extra-precondition", "(room ?r)"),
    ]
    assert o.parameters == (("from", "from"), ("to", "to"))
