"""infra_lib.fmt: numbers as the prose prints them."""
import math

import pytest

from infra_lib import fmt


@pytest.mark.parametrize("x, zh, en", [
    (2.08e11, "2080 亿", "208 billion"),
    (1.25e7, "1250 万", "12.5 million"),
    (1.49e5, "14.9 万", "149,000"),
    (9999, "9,999", "9,999"),
    (1e8, "1 亿", "100 million"),
    (8e10, "800 亿", "80 billion"),
    (2.11e10, "211 亿", "21.1 billion"),
    (5.3e12, "5.3 万亿", "5.3 trillion"),
    (9.9996e7, "1 亿", "100 million"),      # rounding carries into the next scale word
    (0, "0", "0"),
    (211273, "21.1 万", "211,000"),
    (94549, "9.45 万", "94,500"),
    (999999, "100 万", "1 million"),
    (1234.5, "1,234", "1,234"),
])
def test_count_by_hand(x, zh, en):
    assert fmt.count(x, "zh") == zh
    assert fmt.count(x, "en") == en


def test_count_never_uses_western_scale_words_in_chinese():
    for exp in range(0, 15):
        for m in (1, 1.49, 2.08, 9.99):
            text = fmt.count(m * 10**exp, "zh")
            assert not any(w in text for w in ("千", "百万", "十亿", "billion", "million")), text


def test_count_digits():
    assert fmt.count(2.0834e11, "zh", digits=2) == "2100 亿"
    assert fmt.count(1.2346e7, "en", digits=4) == "12.35 million"


@pytest.mark.parametrize("bad, error", [(-1, ValueError), (math.nan, ValueError), (math.inf, ValueError),
                                        ("12", TypeError)])
def test_count_rejects_bad_numbers(bad, error):
    with pytest.raises(error, match="x must"):
        fmt.count(bad, "zh")


def test_count_rejects_unknown_language():
    with pytest.raises(ValueError, match="lang"):
        fmt.count(1e5, "fr")


def test_sci():
    assert fmt.sci(3.2e13) == "3.2 × 10¹³"
    assert fmt.sci(9.96e5, digits=2) == "1 × 10⁶"
