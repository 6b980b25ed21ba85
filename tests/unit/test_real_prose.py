"""The seeded prose the real sites are loaded with: fixed by its seed, unique titles, links."""

from __future__ import annotations

from deepcrawl_fixtures.real.prose import articles, slugify


def test_the_same_seed_gives_the_same_articles() -> None:
    assert articles("site:0", 50) == articles("site:0", 50)
    assert articles("site:0", 50) != articles("site:1", 50)


def test_titles_and_slugs_are_unique_and_of_two_words_or_more() -> None:
    items = articles("site:0", 300)
    slugs = [slugify(a.title) for a in items]
    assert len(set(slugs)) == 300
    assert all(len(a.title.split()) >= 2 for a in items)


def test_about_a_tenth_are_linked_from_another_article() -> None:
    items = articles("site:0", 300)
    targets = {t for i, a in enumerate(items) for t in a.see_also if t != i}
    assert 15 <= len(targets) <= 30


def test_slugify() -> None:
    assert slugify("Seville Lighthouse, Old & New") == "seville-lighthouse-old-new"
