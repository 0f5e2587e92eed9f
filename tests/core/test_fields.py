"""``fields_dict``: the attributes a result's ``to_dict`` reports, in the order named."""

from dataclasses import dataclass

from ppdm.fields import fields_dict


@dataclass
class _Result:
    lower: float
    upper: float
    n: int

    @property
    def width(self) -> float:
        return self.upper - self.lower


def test_order_renames_and_properties():
    r = _Result(0.25, 0.75, 10)
    got = fields_dict(r, "n width lower", {"lower": "lower_confidence"})
    assert list(got.items()) == [("n", 10), ("width", 0.5), ("lower_confidence", 0.25)]
    assert fields_dict(r, ["upper", "n"]) == {"upper": 0.75, "n": 10}
    assert fields_dict(r, "") == {}
