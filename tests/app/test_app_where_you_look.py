"""What the owner sees where they look, in a real headless Chromium: the outcome beside
the button pressed, the page's own words, the controls the rule of Sec. 7 leaves, tables
that fit their card at 1280 px and an audit plot whose text can be read."""

from __future__ import annotations

import json
import re
import zipfile


def _open(page, tables) -> None:
    page.set_input_files("#data-o_file", str(tables["train"]))
    page.wait_for_selector("#attrs-o_privacy table")
    page.wait_for_selector("#attrs-perturb_4", state="detached")  # the class 'group' is chosen


def _fill(page, selector: str, value: str) -> None:
    page.fill(selector, value)
    page.locator(selector).blur()


def test_the_outcome_shows_beside_the_button_in_the_pages_words(page, tables, shot):
    """An error showed only at the top of a 5,000 px page, named the command line's
    --out-of-bounds clip and printed 113752 as 113752.0."""
    _open(page, tables)
    page.click("#audit-o_audit")  # no release yet
    page.wait_for_selector("#audit-o_audit_note .alert-danger")
    assert "make the release first" in page.inner_text("#audit-o_audit_note")
    # salary is whole numbers in a float column: its second row, 113752, is outside
    _fill(page, "#attrs-bounds_1", "20000:30000")
    page.wait_for_function("document.querySelector('#attrs-o_privacy').innerText.includes('yours')")
    page.click("#release-o_make")
    page.wait_for_selector("#release-o_make_note .alert-danger")
    text = page.inner_text("#release-o_make_note")
    shot(page, "owner-make-error", "#release-o_make")
    assert "column 'salary' data row 2 has value 113752 outside its bounds [20000, 30000]" in text
    assert "widen 'your bounds low:high'" in text
    assert "--" not in text and "out_of_bounds" not in text and not re.search(r"\d\.0\b", text)
    _fill(page, "#attrs-bounds_1", "")
    page.click("#release-o_make")
    page.wait_for_function(
        "document.querySelector('#release-o_make_note')?.innerText.includes('release made: 600 records')"
    )


def test_an_integer_column_of_few_values_is_categorical_with_n_its_values(page, tables):
    """elevel (5 integer values) is categorical by the rule d <= N, as on the command line,
    but its row showed 'N 20' and a bounds box."""
    _open(page, tables)
    page.wait_for_selector("#n_text_2")
    assert page.inner_text("#n_text_2") == "N = 5"
    assert page.locator("#attrs-n_2").count() == 0 and page.locator("#attrs-bounds_2").count() == 0
    assert page.locator("#attrs-n_0").count() == 1 and page.locator("#attrs-bounds_0").count() == 1


def _keys(page) -> list[str]:
    return page.locator("#data-o_keys input").evaluate_all("els => els.map(e => e.value)")


def test_the_class_is_no_key_attribute(page, tables):
    _open(page, tables)
    assert _keys(page) == ["age", "salary", "elevel", "car"]
    page.check("#data-o_keys input[value='car']")
    page.check("#data-o_keys input[value='age']")
    page.select_option("#data-o_class", "car")
    page.wait_for_function(
        "!document.querySelector(\"#data-o_keys input[value='car']\")"
        " && !!document.querySelector(\"#data-o_keys input[value='group']\")"
    )
    assert _keys(page) == ["age", "salary", "elevel", "group"]
    assert page.is_checked("#data-o_keys input[value='age']")  # the other choices stay


def test_the_privacy_table_fits_its_card_at_1280_px(page, tables, shot):
    """With an error in a row the table ran 20 px past its card's content at 1280 px."""
    page.set_viewport_size({"width": 1280, "height": 900})
    _open(page, tables)
    _fill(page, "#attrs-bounds_0", "80:20")
    _fill(page, "#attrs-n_1", "100000")
    page.wait_for_function(
        "document.querySelector('#attrs-o_privacy').innerText.includes('the cap')"
    )
    shot(page, "owner-privacy-1280", "#attrs-o_privacy")
    right = page.eval_on_selector(
        "#attrs-o_privacy table",
        """t => {
            const body = t.closest('.card-body');
            const pad = parseFloat(getComputedStyle(body).paddingRight);
            return [t.getBoundingClientRect().right,
                    body.getBoundingClientRect().right - pad, window.innerWidth];
        }""",
    )
    table, content, viewport = right
    assert table <= content + 0.5 and content <= viewport, right


def _min_text_px(report: dict, tmp_path) -> float:
    """The smallest text of the library's audit plot in its own pixels: the figure's
    texts read as it is saved."""
    import matplotlib.figure
    from matplotlib.text import Text

    from ppdm.figures.audit import plot_audit

    seen = []
    save = matplotlib.figure.Figure.savefig

    def spy(fig, *args, **kwargs):
        sizes = [
            t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()
        ]
        seen.append(min(sizes) * kwargs.get("dpi", fig.dpi) / 72)
        return save(fig, *args, **kwargs)

    matplotlib.figure.Figure.savefig = spy
    try:
        plot_audit(report, tmp_path / "audit.png")
    finally:
        matplotlib.figure.Figure.savefig = save
    return seen[0]


def test_the_audit_plot_text_is_readable(page, tables, tmp_path):
    """The audit plot's labels showed at about 6 px (80 % of the card)."""
    page.set_viewport_size({"width": 1280, "height": 900})
    _open(page, tables)
    page.click("#release-o_make")
    page.wait_for_selector("#o_report")
    page.click("#audit-o_audit")
    page.wait_for_selector("#audit-o_audit_plot img", timeout=90_000)
    page.wait_for_function("document.querySelector('#audit-o_audit_plot img').complete")
    shown, natural = page.eval_on_selector(
        "#audit-o_audit_plot img", "i => [i.getBoundingClientRect().width, i.naturalWidth]"
    )
    with page.expect_download() as dl:
        page.click("#release-o_download")
    dl.value.save_as(tmp_path / "r.zip")
    with zipfile.ZipFile(tmp_path / "r.zip") as zf:
        report = json.loads(zf.read("release/audit.json"))
    smallest = _min_text_px(report, tmp_path) * shown / natural
    assert smallest >= 11 - 0.05, (smallest, shown, natural)
