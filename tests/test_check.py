"""_check.fields: records checked against their hints (element types, whole counts, signs) and
their properties computed finite; and the public methods the fuzz named (issue 24)."""
import dataclasses
import math
import random
from fractions import Fraction

import pytest

from infra_lib import _check, cuda, engines, exercises, fab, gpu, launch, machine_bench, specsheet
from infra_lib.widgets import occupancy as occ_widget


@dataclasses.dataclass(frozen=True)
class Shelf:
    _positive = ("width_mm2",)
    _signed = ("offset_s",)
    books: int
    width_mm2: float
    offset_s: float = 0.0
    load_B: float = 0.0
    titles: tuple[str, ...] = ()
    sizes: tuple[int, ...] = ()
    shelf_of: dict[str, int] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        _check.fields(self)

    @property
    def books_per_mm2(self) -> float:
        return self.books / self.width_mm2


@pytest.mark.parametrize("changes, error, match", [
    (dict(books=2.5), ValueError, "^books must be a whole number"),
    (dict(books=-1), ValueError, "^books must be 0 or more"),
    (dict(books=True), TypeError, "^books must be a whole number"),
    (dict(books=10**400), ValueError, "^books must be a finite number"),
    (dict(width_mm2=0.0), ValueError, "^width_mm2 must be greater than 0"),
    (dict(load_B=-1.0), ValueError, "^load_B must be 0 or more"),
    (dict(titles=("a", math.nan)), TypeError, r"^titles\[1\] must be a string"),
    (dict(titles=["a"]), TypeError, "^titles must be a tuple"),
    (dict(sizes=(1, 2.5)), ValueError, r"^sizes\[1\] must be a whole number"),
    (dict(sizes=(1, -2)), ValueError, r"^sizes\[1\] must be 0 or more"),
    (dict(shelf_of={"a": math.nan}), ValueError, r"^shelf_of\['a'\] must be a finite number"),
    (dict(shelf_of={1: 1}), TypeError, "^shelf_of key 1 must be a string"),
    (dict(width_mm2=5e-324), ValueError, "^books_per_mm2 is not finite"),   # 3 / 5e-324
])
def test_fields_refuse_what_the_hint_and_the_sign_rule_forbid(changes, error, match):
    good = dict(books=3, width_mm2=2.0)
    Shelf(**good)
    with pytest.raises(error, match=match):
        Shelf(**(good | changes))


def test_what_the_rules_allow():
    s = Shelf(3.0, 2.0, offset_s=-1.5, titles=("a",), sizes=(0, 4), shelf_of={"a": 0})   # a whole float is whole
    assert s.books_per_mm2 == 1.5 and s.offset_s == -1.5


def test_the_records_the_review_named_refuse_zero():
    with pytest.raises(ValueError, match="die_area_mm2 must be greater than 0"):
        fab.Wafer(die_area_mm2=0, d0_per_cm2=0.1, model="murphy", gross_dies=1, die_yield=0.5, good_dies=1,
                  cost_per_good_die_usd=1)
    level = gpu.h100_hierarchy()[0]
    with pytest.raises(ValueError, match="sm_count must be greater than 0"):
        dataclasses.replace(level, sm_count=0)
    with pytest.raises(ValueError, match="sm_count must be a whole number"):
        dataclasses.replace(level, sm_count=132.5)
    with pytest.raises(ValueError, match="eager_s must be greater than 0"):
        launch.LaunchReading(1, 1, 1.0, 0.0, 1.0, 1.0)


def test_answers_and_exercises_follow_the_finite_policy():
    for bad in (math.nan, math.inf, 10**400):
        assert exercises.Answer(bad).numeric and not exercises.Answer(bad).check(str(bad))
    a = exercises.Answer(4.77, "ms")
    assert a.check(4.77) and not a.check(10**400) and not a.check(math.nan)
    ex = exercises.Exercise("t_ex", {"k": exercises.Param(2, low=1, high=5, integer=True)},
                            lambda k: {"twice": 2 * k})
    with pytest.raises(ValueError, match="^given must be a finite number"):
        ex.grade("twice", 10**400)
    assert ex.grade("twice", 2 * ex.values()["k"]).correct
    with pytest.raises(TypeError, match="^rng must be a Random"):
        exercises.Param(3, low=1, high=9).draw(None)          # type: ignore[arg-type]
    for bad in (math.nan, True, -1e-9, "7"):
        with pytest.raises(TypeError, match="^rng must be"):
            ex.draw(bad)                                      # type: ignore[arg-type]
    assert ex.draw(7) == ex.draw(random.Random(7))


def test_spec_cell_refuses_a_name_no_entry_has():
    assert specsheet.spec_cell("rubin_vr200", "power_W").kind == "unpublished"   # a real spec, unpublished here
    with pytest.raises(KeyError, match="power_W"):
        specsheet.spec_cell("h100_sxm5", "power_w")
    with pytest.raises(KeyError):
        specsheet.spec_cell("h100_sxm5", "")


@pytest.mark.parametrize("call, match", [
    (lambda: cuda.sectors_per_warp(2, warp_size=1e308), "^warp_size must be at most 1024"),
    (lambda: cuda.useful_fraction(2, warp_size=2048), "^warp_size must be at most 1024"),
    (lambda: cuda.stream_timeline(1e308, 1, 1, 1), "^chunks must be at most 10,000"),
    (lambda: machine_bench.matmul_flop_s(64, max_n="abc"), "^max_n must be"),
    (lambda: engines.KvUse(used_tokens=2, reserved_tokens=Fraction(3, 2)), "^reserved_tokens .1.5. must be at least"),
])
def test_bounded_and_validated(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_widget_names_the_control_for_any_value(lang):
    panel = occ_widget.PANEL
    for c in panel.controls:
        for bad in (10**400, 1e308, -1e308, -1) + ((18, 6.5) if c.name == "cc" else ()):   # no slider reaches these
            out = panel.render(lang, dict(panel.defaults(), **{c.name: bad}))
            assert out.startswith("<p>") and "Traceback" not in out
            assert _check._show(bad) in out or f"{bad:,g}" in out or f"{bad:,}" in out, out
