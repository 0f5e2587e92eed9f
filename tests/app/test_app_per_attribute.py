"""Per-attribute gamma and N, the per-record figures and budget, in a real headless
Chromium: what the owner types is what the release's spec holds."""

from __future__ import annotations

import math
import re
import zipfile

from ppdm.pipeline import load_release
from ppdm.privacy import split_budget


def _open(page, tables) -> None:
    page.set_input_files("#data-o_file", str(tables["train"]))
    page.wait_for_selector("#attrs-o_privacy table")
    page.wait_for_selector("#attrs-perturb_4", state="detached")  # the class 'group'


def _fill(page, selector: str, value: str) -> None:
    page.fill(selector, value)
    page.locator(selector).blur()


def _wait_text(page, selector: str, text: str, timeout: float = 30_000) -> None:
    page.wait_for_function(
        "([s, t]) => document.querySelector(s)?.innerText.includes(t)",
        arg=[selector, text],
        timeout=timeout,
    )


def _download_spec(page, tmp_path, name: str):
    with page.expect_download() as dl:
        page.click("#release-o_download")
    path = tmp_path / f"{name}.zip"
    dl.value.save_as(path)
    with zipfile.ZipFile(path) as zf:
        zf.extractall(tmp_path / name)
    return load_release(tmp_path / name / "release").spec


def _gammas(spec) -> dict[str, float]:
    return {a.name: a.get_matrix().amplification() for a in spec.perturbed_attributes()}


def test_gamma_per_attribute_reaches_the_spec_and_the_record_figures(
    page, tables, tmp_path, shot, fits
):
    page.set_viewport_size({"width": 1280, "height": 900})
    _open(page, tables)
    # age at gamma 3, the others at the sidebar's 9; car with N = 3 values
    _fill(page, "#attrs-gamma_0", "3")
    eps = math.log(3) + 3 * math.log(9)
    _wait_text(page, "#attrs-o_per_record", f"epsilon per record: {eps:.1f}")
    record = page.inner_text("#attrs-o_per_record")
    assert "a property of 2 attributes: amplification up to 81" in record
    assert f"a property of all 4 attributes: amplification up to {3 * 9**3:.4g}" in record
    assert "unprotected (released as is or revealed): group" in record
    privacy = page.inner_text("#attrs-o_privacy")
    assert f"{math.log(3):.3f}" in privacy and f"{math.log(9):.3f}" in privacy
    shot(page, "owner-per-attribute-1280", "#attrs-o_per_record")
    for selector in ("#o_per_record_text", "#attrs-o_privacy table", "#attrs-o_attrs"):
        fits(page, selector)
    page.click("#release-o_make")
    _wait_text(page, "#release-o_make_note", "release made")
    spec = _download_spec(page, tmp_path, "own")
    assert _gammas(spec) == {"age": 3.0, "salary": 9.0, "elevel": 9.0, "car": 9.0}

    # a budget below the plan: refused in the page's words, and nothing is released
    _fill(page, "#attrs-o_budget", "5")
    _wait_text(page, "#attrs-o_per_record", "over the per-record budget 5")
    text = page.inner_text("#attrs-o_per_record")
    assert "refused:" in text and f"{eps:.4g}" in text and "epsilon_record" not in text
    page.click("#release-o_make")
    _wait_text(page, "#release-o_make_note", "over the per-record budget 5")

    # the budget split equally among the attributes without a gamma of their own
    page.check("input[name='attrs-o_gmode'][value='budget']")
    _fill(page, "#attrs-o_budget", "8")
    _wait_text(page, "#attrs-o_per_record", "within the per-record budget 8")
    assert "epsilon per record: 8.0" in page.inner_text("#attrs-o_per_record")
    page.click("#release-o_make")
    _wait_text(page, "#release-o_make_note", "release made")
    spec = _download_spec(page, tmp_path, "split")
    share = split_budget(8, dict.fromkeys(["salary", "elevel", "car"], 1.0), fixed={"age": 3.0})
    assert _gammas(spec) == {"age": 3.0, **share}
    assert math.isclose(sum(math.log(g) for g in _gammas(spec).values()), 8, rel_tol=1e-9)
    shot(page, "owner-budget-1280", "#attrs-o_per_record")


def test_copies_reach_the_record_figures_the_budget_and_the_release(page, tables, tmp_path):
    """Kang's copies: each gamma counts copies times in a record's epsilon, a split budget
    shares E among copies x attributes, and the release holds every record that often."""
    _open(page, tables)
    _fill(page, "#attrs-o_copies", "0")
    _wait_text(page, "#attrs-o_per_record", "'copies per record' must be a whole number >= 1")
    page.click("#release-o_make")
    _wait_text(page, "#release-o_make_note", "'copies per record' must be a whole number")
    _fill(page, "#attrs-o_copies", "2")
    _wait_text(page, "#attrs-o_per_record", "2 copies each")
    assert f"epsilon per record: {2 * 4 * math.log(9):.1f}" in page.inner_text(
        "#attrs-o_per_record"
    )
    page.check("input[name='attrs-o_gmode'][value='budget']")
    _fill(page, "#attrs-o_budget", "8")
    _wait_text(page, "#attrs-o_per_record", "within the per-record budget 8")
    page.click("#release-o_make")
    _wait_text(page, "#release-o_make_note", "release made")
    spec = _download_spec(page, tmp_path, "copies")
    assert spec.copies == 2 and spec.n_records == len(tables_frame(tables))
    for g in _gammas(spec).values():  # E = 8 over 2 copies x 4 attributes
        assert math.isclose(g, math.exp(1.0), rel_tol=1e-9)
    assert "copies per record: 2" in page.inner_text("#o_report")
    # key attributes: one copy's linkage would understate what every copy gives an intruder
    page.check("#data-o_keys input[value='age']")
    page.click("#release-o_make")
    _wait_text(page, "#release-o_release_info", "linkage risk is not measured")
    assert page.locator("#o_linkage").count() == 0


def tables_frame(tables):
    import pandas as pd

    return pd.read_csv(tables["train"])


def test_a_bad_gamma_of_one_attribute_is_named_in_its_row(page, tables):
    _open(page, tables)
    _fill(page, "#attrs-gamma_1", "0.5")
    _wait_text(page, "#attrs-o_privacy", "gamma of column 'salary' must be > 1 (got 0.5)")
    page.click("#release-o_make")
    _wait_text(page, "#release-o_make_note", "gamma of column 'salary' must be > 1")


def _per_attribute_table(path) -> None:
    """A table whose advice is N per attribute: the class needs x1's bands of width 20
    (N = 5) and x2's halves (N = 2, which keeps more of the value at one gamma)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 4000
    x1, x2, x3 = (rng.uniform(0, 100, n) for _ in range(3))
    band = np.floor(x1 / 20) % 2 == 0
    pd.DataFrame(
        {
            "x1": x1.round(1),
            "x2": x2.round(1),
            "x3": x3.round(1),
            "y": np.where(band & (x2 > 50), "A", "B"),
        }
    ).to_csv(path, index=False)


def test_use_the_recommendation_fills_n_per_attribute(page, tmp_path, shot, fits):
    page.set_viewport_size({"width": 1280, "height": 900})
    src = tmp_path / "bands.csv"
    _per_attribute_table(src)
    page.set_input_files("#data-o_file", str(src))
    page.wait_for_selector("#attrs-o_privacy table")
    page.wait_for_selector("#attrs-perturb_3", state="detached")  # the class 'y'
    _fill(page, "#attrs-gamma_0", "4")  # the recommendation is one gamma for all
    _fill(page, "#advisor-o_adv_gammas", "9")
    _fill(page, "#advisor-o_adv_ns", "2,5")
    page.click("#advisor-o_advise")
    page.wait_for_selector("#o_advise_rec", timeout=120_000)
    rec = page.inner_text("#o_advise_rec")
    assert "gamma = 9, N = per attribute " in rec, rec
    ns = dict(
        part.split()
        for part in rec.split("N = per attribute ")[1].split(", release")[0].split(", ")
    )
    assert set(ns) == {"x1", "x2", "x3"} and len(set(ns.values())) == 2, ns
    # the command line's report: the learner beside each accuracy, the paper pipeline
    lines = " ".join(page.inner_text("#o_advise_lines").split())
    cell = re.search(r"gamma=9 N=\d+ (.+?) \d+\.\d+% ± \S+ \(paper pipeline ", lines)
    assert cell and cell.group(1) in rec, lines  # the cell's learner, as recommended
    assert "the paper pipeline (c45 on the global reconstruction (the paper's))" in lines
    page.click("#advisor-o_advise_apply")
    for i, name in enumerate(["x1", "x2", "x3"]):
        page.wait_for_function(
            "([s, v]) => document.querySelector(s)?.value == v", arg=[f"#attrs-n_{i}", ns[name]]
        )
    assert page.input_value("#attrs-gamma_0") == ""
    assert page.input_value("#attrs-o_gamma") == "9"
    _wait_text(page, "#o_msg", "applied gamma = 9 and N = per attribute")
    shot(page, "owner-advisor", "#advisor-o_advise")
    for selector in ("#o_advise_lines", "#o_advise_rec", "#advisor-o_advise_plot img"):
        fits(page, selector)
    # the release made now holds the recommended design
    page.click("#release-o_make")
    _wait_text(page, "#release-o_make_note", "release made")
    spec = _download_spec(page, tmp_path, "advised")
    assert {a.name: a.get_domain().n_values for a in spec.perturbed_attributes()} == {
        k: int(v) for k, v in ns.items()
    }
    assert set(_gammas(spec).values()) == {9.0}
