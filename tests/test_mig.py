"""infra_lib/mig.py: the H100 80 GB MIG table and the placement rules, from the MIG User Guide."""
import itertools

import pytest

from infra_lib import mig


def test_table_matches_the_guide():
    # Table 7: fraction of memory x 80 GB is the number in the name; instances 7/1/4/3/2/1/1
    for p in mig.PROFILES.values():
        assert p.memory_GB == float(p.name.split(".")[1].split("gb")[0])
        assert p.compute_slices == int(p.name[0])
    assert [p.max_instances for p in mig.PROFILES.values()] == [7, 1, 4, 3, 2, 1, 1]


def test_every_full_layout_of_the_guide_is_valid():
    for layout in ([("7g.80gb", 0)], [("4g.40gb", 0), ("3g.40gb", 4)], [("3g.40gb", 0), ("3g.40gb", 4)],
                   [("2g.20gb", 0), ("2g.20gb", 2), ("2g.20gb", 4), ("1g.20gb", 6)],
                   [("1g.20gb", s) for s in (0, 2, 4, 6)], [("1g.10gb", s) for s in range(7)]):
        assert mig.check(layout).ok, layout


@pytest.mark.parametrize("layout, reason, culprit", [
    ([("4g.40gb", 4)], "bad_start", 0),                        # 4g only at 0
    ([("3g.40gb", 2)], "bad_start", 0),
    ([("1g.10gb", 7)], "bad_start", 0),                        # slice 7 is never a 1g start
    ([("3g.40gb", 0), ("2g.20gb", 2)], "overlap", 1),
    ([("7g.80gb", 0), ("1g.10gb", 3)], "overlap", 1),
    ([("1g.10gb+me", 0), ("1g.10gb+me", 1)], "too_many", 1),
])
def test_invalid_layouts_name_the_rule(layout, reason, culprit):
    v = mig.check(layout)
    assert (v.ok, v.reason, v.culprit) == (False, reason, culprit)


def test_compute_never_exceeds_seven_in_any_valid_pair():
    names = list(mig.PROFILES)
    for a, b in itertools.product(names, repeat=2):
        for sa in mig.profile(a).starts:
            for sb in mig.profile(b).starts:
                v = mig.check([(a, sa), (b, sb)])
                assert not v.ok or v.compute_used <= 7


def test_pack_and_stranded_memory():
    v = mig.pack(["1g.10gb"] * 7)
    assert v.ok and v.memory_free_GB == 10 and v.compute_free == 0     # 7 x 1g: one memory slice idle
    assert mig.pack(["4g.40gb", "3g.40gb"]).ok
    assert not mig.pack(["4g.40gb", "4g.40gb"]).ok
    bad = mig.pack(["3g.40gb", "3g.40gb", "1g.10gb"])
    assert (bad.ok, bad.culprit) == (False, 2)


def test_unknown_profile_suggests_the_nearest():
    with pytest.raises(KeyError, match="1g.10gb"):
        mig.profile("1g.10g")


def test_pack_searches_instead_of_taking_the_first_position():
    # greedy would put the 3g.40gb at slice 0, leaving 4-5 for the 2g and only slice 6 for a 1g;
    # the valid layout puts the 3g.40gb on slices 4-7, the 2g on 0-1 and the 1g's on 2 and 3
    v = mig.pack(["3g.40gb", "2g.20gb", "1g.10gb", "1g.10gb"])
    assert v.ok and v.slices == (1, 1, 2, 3, 0, 0, 0, 0) and v.compute_used == 7
    # 3g on 4-7 and the two 2g on 0-1 and 2-3: all 8 memory and all 7 compute slices
    assert mig.pack(["3g.40gb", "2g.20gb", "2g.20gb"]).slices == (1, 1, 2, 2, 0, 0, 0, 0)
    assert mig.pack(["3g.40gb", "2g.20gb", "2g.20gb", "1g.10gb"]).ok is False
