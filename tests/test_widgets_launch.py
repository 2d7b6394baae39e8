"""Chapter 2 widget (infra_lib/widgets/launch.py): the launch model against the H200
measurements; the graph-launch slider stays below the eager one; bad input is a message in
the page's language, in microseconds, naming the sliders."""
import json
from pathlib import Path

import pytest

from infra_lib.launch import LaunchModel, h200_launch_model
from infra_lib.i18n import LANGUAGES
from infra_lib.widgets import launch
from widget_checks import assert_names_control, text_of

RUN = Path(__file__).resolve().parents[1] / "infra_lib" / "data" / "measurements" / "h200-2026-11-29"
DEFAULTS = dict(kernels=913, launch_us=7.1, graph_launch_us=1.2, gpu_ms=5.1)


def test_summary_with_the_measured_model_reproduces_both_measured_steps():
    decode = {(r["batch"], r["ctx"]): r for r in
              json.loads((RUN / "reality_check.json").read_text(encoding="utf-8"))["decode"]}[(1, 1000)]
    m = h200_launch_model()
    rows = launch.summary("en", round(m.kernels), m.eager_launch_s * 1e6, m.graph_launch_s * 1e6, m.gpu_s * 1e3).rows
    ms = lambda row: float(row[1].split()[0])
    # overlapped: CPU-bound at batch 1 (whole kernels: within one launch, 7 us, of the measurement)
    assert abs(ms(rows[1]) - decode["s_eager"] * 1e3) < m.eager_launch_s * 1e3
    assert rows[2][1] == f"{decode['s_graph'] * 1e3:,.3f} ms"
    assert float(rows[0][1].split()[0]) > 1.5 * decode["s_eager"] * 1e3  # serial: far above the measurement


def test_defaults_are_the_measured_model_on_the_slider_grid():
    m, d = h200_launch_model(), launch.PANEL.defaults()
    assert d["kernels"] == round(m.kernels)
    assert abs(d["launch_us"] - m.eager_launch_s * 1e6) <= 0.005
    assert abs(d["graph_launch_us"] - m.graph_launch_s * 1e6) <= 0.005
    assert abs(d["gpu_ms"] - m.gpu_s * 1e3) <= 0.005


@pytest.mark.parametrize("kernels, eager, graph, gpu_ms", [(224, 7.1, 1.2, 4.9), (1000, 20, 0, 2), (0, 0.5, 0.4, 50)])
def test_summary_is_the_launch_model(kernels, eager, graph, gpu_ms):
    m = LaunchModel(kernels, eager * 1e-6, graph * 1e-6, gpu_ms * 1e-3)
    rows = launch.summary("en", kernels, eager, graph, gpu_ms).rows
    assert [r[1] for r in rows] == [f"{s * 1e3:,.3f} ms" for s in (m.eager_serial_s, m.eager_overlapped_s,
                                                                   m.graph_overlapped_s)]
    assert f"{m.lost_share_serial:.1%}" in rows[0][2]


def test_cpu_bound_flips_with_gpu_time():
    short = launch.PANEL.render("en", dict(DEFAULTS, gpu_ms=5.0))      # 913 x 7.1 us = 6.48 ms > 5 ms
    long = launch.PANEL.render("en", dict(DEFAULTS, gpu_ms=8.0))
    assert "CPU-bound even with overlap" in short and "GPU-bound with overlap" in long


def test_graph_slider_stays_below_the_eager_one():
    box = launch.explore("en")
    sliders = dict(zip((c.name for c in launch.PANEL.controls), box.children[:-1]))
    sliders["graph_launch_us"].value = 5
    sliders["launch_us"].value = 0.5
    assert sliders["graph_launch_us"].value == sliders["graph_launch_us"].max == 0.49
    assert "Cannot compute" not in box.children[-1].value
    sliders["launch_us"].value = 50
    assert sliders["graph_launch_us"].max == 10
    assert box.children[-1].value == launch.PANEL.render("en", {n: s.value for n, s in sliders.items()})


@pytest.mark.parametrize("lang", LANGUAGES)
def test_graph_not_below_eager_is_a_message_in_microseconds(lang):
    values = dict(DEFAULTS, graph_launch_us=9)
    out = launch.PANEL.render(lang, values)
    assert_names_control(out, launch.PANEL, lang, "graph_launch_us", values)
    assert "= 9" in text_of(out) and "7.1" in text_of(out) and "_s" not in out


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("bad, name", [
    (dict(kernels=-1), "kernels"), (dict(launch_us=0), "launch_us"), (dict(gpu_ms=0), "gpu_ms"),
    (dict(kernels="many"), "kernels"), (dict(graph_launch_us=-1), "graph_launch_us"),
])
def test_bad_input_is_a_message_naming_the_slider(lang, bad, name):
    values = dict(DEFAULTS, **bad)
    assert_names_control(launch.PANEL.render(lang, values), launch.PANEL, lang, name, values)
