"""Server-side SVG plots (engine.evals.plots): no script, no style attribute, escaped text."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from engine.evals import plots

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def test_a_bar_per_model_scaled_to_the_largest():
    svg = plots.bar_chart("Cost per action", {"haiku": 0.002, "sonnet": 0.008}, lambda v: f"${v}")

    rects = parse(svg).findall(f"{SVG}rect")
    widths = [float(r.get("width")) for r in rects]
    assert len(rects) == 2
    assert widths[1] / widths[0] == 4.0
    assert "$0.008" in svg and "<title>Cost per action</title>" in svg


def test_errors_are_grouped_by_class_with_one_bar_per_model_and_a_legend():
    svg = plots.grouped_bars(
        "Errors per class", ["secret-leak", "length"], {"a": {"length": 2}, "b": {"length": 1}}
    )

    tips = [t.text for t in parse(svg).iter(f"{SVG}title")]
    assert "a · length: 2" in tips and "b · secret-leak: 0" in tips
    assert ">a</text>" in svg and ">b</text>" in svg


def test_latency_is_a_box_a_median_and_every_action():
    svg = plots.latency_plot("Latency", {"m": [100.0, 200.0, 300.0, 400.0, 4200.0]})

    root = parse(svg)
    assert len(root.findall(f"{SVG}circle")) == 5
    assert "median 300 ms" in svg
    assert ">5000</text>" in svg  # the axis ends at a round number above 4200


def test_text_is_escaped_and_nothing_would_need_script_or_inline_style():
    svg = plots.bar_chart("<b>&", {'"><script>alert(1)</script>': 1.0})

    parse(svg)  # well-formed
    assert "<script" not in svg and "style=" not in svg
    assert "&lt;b&gt;&amp;" in svg


def test_no_data_says_so():
    assert "No data." in plots.bar_chart("Cost", {})
    assert "No errors found." in plots.grouped_bars("Errors", [], {"m": {}})
    assert re.search(r"<svg[^>]*viewBox", plots.latency_plot("Latency", {}))
