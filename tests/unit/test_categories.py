"""Prize categories as organisers write them: what each takes, and the names that are no category."""

from __future__ import annotations

import pytest

from tmanager.core.categories import Category
from tmanager.core.playerfields import Sex


def member(name: str, *, birth_year: int | None = None, sex: Sex = Sex.MAN, rating: int = 0) -> bool:
    return Category.parse(name).includes(year=2026, birth_year=birth_year, sex=sex, rating=rating)


def test_ages_count_as_fide_youth_events_count_them() -> None:
    assert member("U18", birth_year=2008) and not member("U18", birth_year=2007)
    assert member("s50", birth_year=1976) and not member("S50", birth_year=1977)
    assert not member("U18"), "an unknown birth year is in no age category"


def test_ratings_bands_sex_and_unrated() -> None:
    assert member("U1800", rating=1799) and not member("U1800", rating=1800) and not member("U1800")
    assert member("1800-1999", rating=1999) and not member("1800-1999", rating=2000)
    assert member("2000-", rating=2800) and member("-1599", rating=1599) and not member("-1599")
    assert member("unrated") and not member("unrated", rating=1500)
    assert member("women", sex=Sex.WOMAN) and not member("Women")


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("U0", "'U0': an age category counts from 1"),
        ("S0", "'S0': an age category counts from 1"),
        ("S100", "'S100': S takes an age"),
        ("2000-1800", "'2000-1800': the band's first rating is above its last"),
        ("juniors", "'juniors' is not a category"),
        ("-", "'-' is not a category"),
    ],
)
def test_a_name_that_is_no_category_is_refused(name: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        Category.parse(name)
