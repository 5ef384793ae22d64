"""A user's run compared task by task with a published model: invariants of the counts."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from planproof.report.task_compare import LISTED, compare

_ids = st.lists(st.sampled_from([f"{i}_1" for i in range(40)]), unique=True, max_size=30)


@given(_ids, st.data())
def test_counts_partition_the_shared_tasks_and_swap_with_the_sides(
    ids: list[str], data: st.DataObject
) -> None:
    module = data.draw(st.sampled_from(["action-sequencing", "goal-interpretation"]))
    key = "f1" if module == "goal-interpretation" else "success"
    value = st.floats(0, 100) if key == "f1" else st.booleans()
    mine = [{"identifier": i, key: data.draw(value)} for i in ids]
    theirs = [{"identifier": i, key: data.draw(value)} for i in ids]
    a = compare(module, "me", mine, "them", theirs)
    b = compare(module, "them", theirs, "me", mine)
    assert a.both + a.user_only + a.model_only + a.neither == a.shared == len(ids)
    assert (a.user_only, a.model_only, a.both, a.neither) == (
        b.model_only,
        b.user_only,
        b.both,
        b.neither,
    )
    assert len(a.user_wins) == min(a.user_only, LISTED)
    same = compare(module, "me", mine, "me again", mine)
    assert same.user_only == same.model_only == 0
