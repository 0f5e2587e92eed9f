"""``ppdm report DIR --html FILE``: one self-contained page with the spec's privacy figures."""

from __future__ import annotations

import base64
import datetime as dt
import html
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from ppdm import __version__
from ppdm.cli import app
from ppdm.html_report import render_html_report, write_html_report
from ppdm.pipeline import make_release
from ppdm.release import read_spec
from ppdm.report import privacy_report

runner = CliRunner()
EVIL = "<script>alert(1)</script>"


@pytest.fixture
def release(tmp_path):
    rng = np.random.default_rng(0)
    n = 1500
    df = pd.DataFrame(
        {
            "age": rng.integers(20, 80, n),
            EVIL: rng.choice(["a", "b", "c"], n),
            "zip": rng.integers(0, 99, n),
            "cls": rng.choice(["yes", "no"], n),
        }
    )
    orig = tmp_path / "orig.csv"
    df.to_csv(orig, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        make_release(
            df,
            tmp_path / "rel",
            class_attribute="cls",
            attributes=["age", EVIL],
            bounds={"age": (20, 80)},
            n_bins=6,
            gamma=9.0,
            random_state=1,
        )
    return tmp_path / "rel", orig


def _page(release, tmp_path, *extra):
    out = tmp_path / "report.html"
    r = runner.invoke(app, ["report", str(release[0]), "--html", str(out), *extra])
    assert r.exit_code == 0, r.output
    return out.read_text(encoding="utf-8")


def test_page_is_self_contained_and_escapes_names(release, tmp_path):
    page = _page(release, tmp_path)
    assert "http://" not in page and "https://" not in page
    assert "<script" not in page.lower()
    assert "<link" not in page.lower() and "@import" not in page and "url(" not in page
    assert html.escape(EVIL) in page
    imgs = re.findall(r"<img\b[^>]*>", page)
    # one figure per perturbed attribute
    assert len(imgs) == 2
    for tag in imgs:
        src = re.search(r'src="([^"]*)"', tag).group(1)
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"


def test_page_holds_the_privacy_figures_of_the_spec(release, tmp_path):
    page = _page(release, tmp_path)
    rep = privacy_report(read_spec(release[0]))
    assert rep["n_records"] == 1500
    for a in rep["attributes"]:
        assert html.escape(a["name"]) in page
        if not a["perturbed"]:
            continue
        for r in ("0.01", "0.05", "0.1", "0.2"):
            assert f"{a['rho2'][r]:.3f}" in page
        assert f"{a['entropy_bits']:.3f}" in page
        assert f"{a['kang_bound']:.4f}" in page
        assert f"{a['epsilon']:.3f}" in page
        assert f"{a['gamma_realised']:.10g}" in page
    # gamma 9: a property of prior 0.1 reaches at most 0.5
    assert "50.0%" in page
    assert "1500" in page and __version__ in page
    # the unperturbed columns are named as unprotected, the class among them
    block = page[page.index("Released as is") :]
    block = block[: block.index("</div>")]
    assert "zip" in block and "cls" in block and "age" not in block
    # the categorical domain was read off the data: a leak
    assert "Leaks:" in page and "list of values taken from the data" in page


# the shape of AuditReport.to_dict, as the page reads it
_AUDIT = {
    "passed": True,
    "violations": [],
    "policy": {"rho1": 0.1, "rho2": 0.5, "gamma": 9.0},
    "alpha": 0.001,
    "attributes": [],
}


def test_a_pass_with_figures_above_their_bound_says_so(tmp_path):
    # wine, 178 records: counted posteriors land above their bound by chance; the page
    # must not read as cleaner than the audit below it
    from sklearn.datasets import load_wine

    from ppdm.attacks.audit import audit_release, not_significant
    from ppdm.pipeline import make_release

    frame = load_wine(as_frame=True).frame
    frame.to_csv(tmp_path / "wine.csv", index=False)
    make_release(tmp_path / "wine.csv", tmp_path / "rel", class_attribute="target",
                 random_state=1)  # fmt: skip
    audit = audit_release(tmp_path / "rel", tmp_path / "wine.csv")
    data = audit.to_dict()
    assert data["passed"]
    n = not_significant(data)
    assert n > 0
    page = render_html_report(privacy_report(read_spec(tmp_path / "rel")), audit=audit)
    assert "Audit PASSED:</b> no attack learns significantly more than the policy" in page
    assert f"{n} counted figure(s) lie above their bound, within chance" in page


def test_audit_verdict_and_text(release, tmp_path):
    page = _page(release, tmp_path, "--audit-original", str(release[1]))
    assert "Audit PASSED" in page
    assert "ppdm audit" in page and "bayes-map" in page


def test_failed_audit_is_shown(release, tmp_path):
    rep = privacy_report(read_spec(release[0]))
    audit = dict(_AUDIT, passed=False, violations=["alcohol: recovered 0.9 > 0.6"])
    page = render_html_report(
        rep, audit=audit, audit_text=f"FAILED: {EVIL}", today=dt.date(2024, 1, 2)
    )
    assert "Audit FAILED:</b> 1 bound(s) exceeded; do not publish" in page
    assert "2024-01-02" in page
    assert html.escape(f"FAILED: {EVIL}") in page


def test_typed_audit_report_is_read_through_to_dict(release):
    class Typed:
        def to_dict(self):
            return _AUDIT

    page = render_html_report(privacy_report(read_spec(release[0])), audit=Typed())
    assert "Audit PASSED" in page


def test_refuses_inputs_and_bad_flags(release, tmp_path):
    rel, orig = release
    before = orig.read_bytes()
    r = runner.invoke(app, ["report", str(rel), "--html", str(rel / "r.html")])
    assert r.exit_code == 2 and "--html" in r.output and "input" in r.output
    assert not (rel / "r.html").exists()
    # the original table is an input too, whatever its name
    target = tmp_path / "orig.html"
    orig_html = orig.rename(target)
    r = runner.invoke(
        app, ["report", str(rel), "--html", str(orig_html), "--audit-original", str(orig_html)]
    )
    assert r.exit_code == 2 and "input" in r.output
    assert orig_html.read_bytes() == before
    r = runner.invoke(app, ["report", str(rel), "--audit-original", str(orig_html)])
    assert r.exit_code == 2 and "needs --html" in r.output
    r = runner.invoke(app, ["report", str(rel), "--html", str(tmp_path / "r.txt")])
    assert r.exit_code == 2 and ".html" in r.output


def test_spec_file_alone_and_overwrite_is_atomic(release, tmp_path):
    out = tmp_path / "spec.html"
    write_html_report(release[0] / "spec.json", out)
    page = out.read_text()
    assert "spec file alone" in page and "<img" not in page
    # a second run replaces the page whole and leaves nothing beside it
    write_html_report(release[0], out)
    assert "<img" in out.read_text()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize(
    "extra, why",
    [
        (
            ["--method", "additive", "--bounds", "age=20:80", "--attributes", "age"],
            "checks substitution releases",
        ),
        (["--copies", "3", "--bounds", "age=20:80"], "one perturbed copy per record"),
    ],
)
def test_an_audit_that_cannot_apply_is_refused_before_anything_is_printed(
    release, tmp_path, extra, why
):
    _, orig = release
    rel = tmp_path / "other"
    r = runner.invoke(
        app, ["perturb", str(orig), "--out", str(rel), "--class", "cls", "--seed", "1", *extra]
    )
    assert r.exit_code == 0, r.output
    page = tmp_path / "r.html"
    r = runner.invoke(app, ["report", str(rel), "--html", str(page), "--audit-original", str(orig)])
    assert r.exit_code == 2 and not page.exists()
    assert r.output.startswith("error: --audit-original:") and why in r.output, r.output
    r = runner.invoke(app, ["report", str(rel), "--html", str(page)])  # the page alone
    assert r.exit_code == 0 and page.exists(), r.output


def test_the_audit_shows_its_table_as_a_table_and_wraps_its_text(release, tmp_path):
    """The audit's text ran past the page's edge in one preformatted block (its table
    is about 170 characters wide): the table is an HTML table, the prose wraps."""
    import html as html_lib
    import re

    from ppdm.html_report import _audit_body

    page = _page(release, tmp_path, "--audit-original", str(release[1]))
    audit = page[page.index("Audit") :]
    assert '<th class="name">attribute</th>' in audit and "<th>best attack</th>" in audit
    for name in ("age", EVIL):
        assert f'<td class="name">{html_lib.escape(name)}</td>' in audit
    assert "<pre>" not in audit and '<pre class="wrap">' in audit
    # a row that does not split into the header's cells stays text
    text = "attribute  N  verdict\na  b  20  within\n\nafter"
    body = _audit_body(text)
    assert "<table" not in body and re.search(r"a  b  20  within", body)


def test_the_page_states_the_error_bars_its_figures_draw(release, tmp_path):
    from ppdm.figures import SE_BARS

    text = _page(release, tmp_path)
    # the sentence above the figures gives the figures' own convention (their legends
    # say "± 2 s.e." too)
    assert f"with error bars of ± {SE_BARS} s.e." in text
    assert "1 standard error" not in text
