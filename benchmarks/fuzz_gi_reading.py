"""Goal interpretation's reference reading
(:mod:`planproof.metrics.reference_goal_interpretation`) against virtualhome-eval 0.1.1's
own evaluator, on mutated published answers.

    python benchmarks/fuzz_gi_reading.py [--cases 400] [--seed 5] [--save PATH]

Each case is a published goal-interpretation answer (one of the 15 models) with one to
three mutations: a goal list of the wrong type (an object, a string, a number, null), an
item of the wrong type or without its keys, a name or state or action of the wrong type,
an unknown name, case changes, items repeated (also as ``1`` / ``true`` / ``1.0``), a key
given twice, an empty item, a fence or prose around the JSON, the ``<|eot_id|>`` token, a
quote inside a name, the text cut short. The reference runs per case
(``fuzz_reference_driver.py`` in the ``published`` venv, ``PYTHONHASHSEED=2``, ``nice -n
19``, resumable under ``benchmarks/results/fuzz-gi-<seed>/``); the reading runs here.
Compared per case: read or not, (TP, FP, FN) per goal type, format errors and
hallucinations. A case on which the reference's own loop raises (it would lose the whole
file) is counted apart. ``--save`` writes the cases and the reference's verdicts as test
data (``tests/data/fuzz/gi_reference_cases.json.gz``). Results:
``docs/reference-differences.md``.
"""

from __future__ import annotations

import json
import random
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_common import case_record, fuzz_run, save_cases
from reference_env import PUBLISHED

KEYS = ("node goals", "edge goals", "action goals")
ODD = (1, True, 1.0, None, [], {}, "", ["a"], {"a": 1}, "name state", 0, False)
"""Values of the wrong type for a name, a state, an action or a whole item."""

Answer = dict[str, Any]


def _items(a: Answer, rng: random.Random) -> tuple[str, list[Any]] | None:
    keys = [k for k in KEYS if isinstance(a.get(k), list) and a[k]]
    if not keys:
        return None
    k = rng.choice(keys)
    return k, a[k]


def list_wrong_type(a: Answer, rng: random.Random) -> Answer | None:
    k = rng.choice(KEYS)
    old = a.get(k)
    first = old[0] if isinstance(old, list) and old else {"name": "tv", "state": "ON"}
    a[k] = rng.choice([first, "name", "tv ON", 3, None, {}, ""])
    return a


def item_wrong_type(a: Answer, rng: random.Random) -> Answer | None:
    got = _items(a, rng)
    if got is None:
        return None
    _, items = got
    items[rng.randrange(len(items))] = rng.choice(
        [*ODD, "name", "state", "from_name to_name relation", "action", ["name", "state"]]
    )
    return a


def _dict_item(a: Answer, rng: random.Random, *, empty: bool = False) -> dict[str, Any] | None:
    """A random item of a random goal list, if it is an object (non-empty unless
    ``empty``)."""
    got = _items(a, rng)
    if got is None:
        return None
    _, items = got
    item = items[rng.randrange(len(items))]
    return item if isinstance(item, dict) and (item or empty) else None


def field_wrong_type(a: Answer, rng: random.Random) -> Answer | None:
    item = _dict_item(a, rng)
    if item is None:
        return None
    key = rng.choice(sorted(item))
    item[key] = rng.choice(ODD)
    return a


def missing_key(a: Answer, rng: random.Random) -> Answer | None:
    item = _dict_item(a, rng)
    if item is None:
        return None
    del item[rng.choice(sorted(item))]
    if rng.random() < 0.5:
        item["extra"] = "x"
    return a


def unknown_name(a: Answer, rng: random.Random) -> Answer | None:
    item = _dict_item(a, rng, empty=True)
    names = [k for k in ("name", "from_name", "to_name") if item is not None and k in item]
    if item is None or not names:
        return None
    item[rng.choice(names)] = rng.choice(["unicorn", "living_room", "Tv", "tv ", "character"])
    return a


def case_change(a: Answer, rng: random.Random) -> Answer | None:
    item = _dict_item(a, rng, empty=True)
    if item is None:
        return None
    strings = [k for k, v in item.items() if isinstance(v, str)]
    if not strings:
        return None
    k = rng.choice(strings)
    item[k] = rng.choice([str.upper, str.lower, str.title])(item[k])
    return a


def key_case(a: Answer, rng: random.Random) -> Answer | None:
    k = rng.choice(KEYS)
    if k not in a:
        return None
    a[rng.choice([k.title(), k.replace(" ", "_"), k.upper()])] = a.pop(k)
    return a


def repeated_item(a: Answer, rng: random.Random) -> Answer | None:
    got = _items(a, rng)
    if got is None:
        return None
    _, items = got
    item = items[rng.randrange(len(items))]
    twin = json.loads(json.dumps(item))
    if isinstance(twin, dict) and rng.random() < 0.5:
        k = rng.choice(sorted(twin)) if twin else None
        if k is not None:
            item[k], twin[k] = rng.choice([(1, True), (1, 1.0), (0, False), (True, 1.0)])
    items.insert(rng.randrange(len(items) + 1), twin)
    return a


def empty_item(a: Answer, rng: random.Random) -> Answer | None:
    k = rng.choice(KEYS)
    items = a.setdefault(k, [])
    if not isinstance(items, list):
        return None
    items.insert(rng.randrange(len(items) + 1), rng.choice([{}, [], ""]))
    return a


def action_alternatives(a: Answer, rng: random.Random) -> Answer | None:
    items = a.get("action goals")
    if not isinstance(items, list):
        return None
    action = rng.choice(["WASH|RINSE", "wash", "Switchon", "SWITCHON", "TYPE", "PUTBACK", "walk"])
    items.append({"action": action, **({"description": "x"} if rng.random() < 0.3 else {})})
    return a


def drop_list(a: Answer, rng: random.Random) -> Answer | None:
    a.pop(rng.choice(KEYS), None)
    return a


STRUCTURAL: tuple[Callable[[Answer, random.Random], Answer | None], ...] = (
    list_wrong_type,
    item_wrong_type,
    field_wrong_type,
    missing_key,
    unknown_name,
    unknown_name,
    case_change,
    key_case,
    repeated_item,
    repeated_item,
    empty_item,
    action_alternatives,
    drop_list,
)


def dump(a: Any, rng: random.Random) -> str:
    text = json.dumps(a, indent=rng.choice([None, 2]))
    if rng.random() < 0.3:
        text = text.replace('"', "'")
    return text


def duplicate_key(text: str, rng: random.Random) -> str | None:
    k = rng.choice(KEYS)
    at = text.find(f'"{k}"')
    if at < 0:
        return None
    extra = rng.choice(['[{"name": "tv", "state": "ON"}]', "[]", '"x"'])
    return text[:at] + f'"{k}": {extra}, ' + text[at:]


def wrapped(text: str, rng: random.Random) -> str | None:
    return rng.choice(
        [
            "```json\n" + text + "\n```",
            "```\n" + text + "\n```",
            "```JSON\n" + text + "\n```",
            "Here is the goal:\n" + text,
            text + "<|eot_id|>",
            "<|eot_id|>" + text,
            "  \n" + text + "\n\n",
            text + "\nI hope this helps.",
        ]
    )


def cut(text: str, rng: random.Random) -> str | None:
    return text[: rng.randrange(1, max(2, len(text)))]


def quote_in_name(text: str, rng: random.Random) -> str | None:
    at = text.find('"name": "')
    if at < 0:
        return None
    at += len('"name": "')
    return text[:at] + rng.choice(["kid's ", "it\\'s_", '\\"']) + text[at:]


def trailing_comma(text: str, rng: random.Random) -> str | None:
    at = text.rfind("]")
    return None if at < 0 else text[:at] + "," + text[at:]


TEXTUAL: tuple[Callable[[str, random.Random], str | None], ...] = (
    duplicate_key,
    duplicate_key,
    wrapped,
    wrapped,
    cut,
    quote_in_name,
    trailing_comma,
)


def mutated_cases(count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` mutated published answers, reproducible from ``seed``."""
    from planproof.data.published import published_files
    from planproof.metrics.reference_goal_interpretation import reference_json

    rows = []
    for f in published_files("goal-interpretation", "virtualhome"):
        for r in json.loads(f.path.read_text(encoding="utf-8")):
            rows.append((f.model, str(r["identifier"]), str(r.get("llm_output", ""))))
    rng = random.Random(seed)
    out = []
    for n in range(count):
        model, ident, text = rng.choice(rows)
        applied: list[str] = []
        try:
            answer = reference_json(text)
        except ValueError:
            answer = None
        if isinstance(answer, dict) and rng.random() < 0.8:
            for _ in range(rng.choice((1, 1, 2, 3))):
                mutate = rng.choice(STRUCTURAL)
                new = mutate(answer, rng)
                if new is not None:
                    answer = new
                    applied.append(mutate.__name__)
            text = dump(answer, rng)
        if rng.random() < 0.5 or not applied:
            mutate_text = rng.choice(TEXTUAL)
            new_text = mutate_text(text, rng)
            if new_text is not None:
                text = new_text
                applied.append(mutate_text.__name__)
        out.append(case_record(f"{seed}-{n}", model, ident, applied, text))
    return out


def reading(case: dict[str, Any]) -> dict[str, Any]:
    """The reference reading's counts on one case, in the reference's terms."""
    from planproof.metrics.reference_goal_interpretation import count_answer
    from planproof.simulators.virtualhome.reference_goals import reference_goals

    gold = reference_goals()[case["identifier"]]
    return count_answer(case["identifier"], case["llm_output"], gold).log_record()


def reference_verdict(rec: dict[str, Any]) -> dict[str, Any]:
    """The reference's record in the reading's terms (an answer its ``json.loads`` fails
    on logs one format error and no counts)."""
    task = dict(rec.get("task") or {})
    if rec.get("raised"):
        return {"raised": rec["raised"]}
    if "node" not in task:
        return {"read": False}
    return {"read": True, **task}


def main(argv: list[str] | None = None) -> int:
    args, cases, theirs = fuzz_run(
        argv, __doc__, (400, 5), mutated_cases, flavour=PUBLISHED, module="goal_interpretation"
    )
    classes: Counter[str] = Counter()
    stored = []
    agree = 0
    for case in cases:
        ref = reference_verdict(theirs[case["key"]])
        mine = reading(case)
        same = ref == mine
        if "raised" in ref:
            classes[f"reference raised {ref['raised'].split(':')[0]}"] += 1
        elif same:
            agree += 1
        else:
            what = [k for k in ("read", "node", "edge", "action") if ref.get(k) != mine.get(k)]
            what += [k for k in ("format_wrong", "hallucinated") if ref.get(k) != mine.get(k)]
            classes["differ: " + ",".join(what)] += 1
            print(f"{case['key']} {case['model']} {case['identifier']} {case['mutations']}:")
            print(f"   reference {ref}\n   reading   {mine}\n   {case['llm_output'][:300]!r}")
        stored.append({**case, "reference": ref, "agree": same})
    print(f"{len(cases)} cases, {agree} agree; the rest: {dict(classes)}")
    if args.save:
        versions = {"virtualhome_eval": "0.1.1"}
        command = f"python benchmarks/fuzz_gi_reading.py --cases {args.cases} --seed {args.seed}"
        save_cases(args.save, "goal interpretation", command, versions, stored)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    raise SystemExit(main())
