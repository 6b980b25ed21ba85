"""A search's order: fixed (by key or name) or by relevance, from the lists it showed."""

from __future__ import annotations

import random

import pytest

from deepcrawl.querying.order import ListOrder, one_way_share, record_key


@pytest.mark.parametrize(
    ("record_id", "key"),
    [
        ("http://127.0.0.1:8001/register/listings/17", 17),
        ("http://site/item.php?id=204&lang=en", 204),
        ("http://site/places/old-mill", None),
    ],
)
def test_a_records_key_is_the_last_number_of_its_path_and_query_not_its_port(
    record_id: str, key: int | None
) -> None:
    assert record_key(record_id) == key


def test_the_share_of_steps_one_way_ignores_ties_and_needs_a_few_steps() -> None:
    assert one_way_share([1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 1]) == 8 / 9
    assert one_way_share([9, 8, 7, 6, 5, 4, 3, 2, 1]) == 1.0
    assert one_way_share([1, 2, 3]) is None


def _ids(keys: list[int]) -> list[str]:
    return [f"http://site/record/{key}" for key in keys]


def test_lists_in_key_order_make_the_search_fixed_and_relevance_lists_do_not() -> None:
    order = ListOrder(share=0.9, lists=2)
    ascending = _ids(list(range(0, 300, 3)))
    assert order.observe(ascending) is True
    assert not order.fixed  # one list is chance
    assert order.observe(ascending[::-1]) is True  # descending is as fixed
    assert order.fixed
    ranked = ListOrder(share=0.9, lists=2)
    rng = random.Random(0)
    for _ in range(3):
        assert ranked.observe(_ids(rng.sample(range(1000), 40))) is False
    assert not ranked.fixed


def test_a_search_listing_the_highest_key_first_is_falling() -> None:
    order = ListOrder(share=0.9, lists=2)
    for start in (300, 280):
        order.observe(_ids(list(range(start, start - 30, -3))))
    assert order.fixed
    assert order.falling
    order.observe(_ids(list(range(0, 30, 3))))
    order.observe(_ids(list(range(0, 30, 3))))
    assert order.fixed
    assert not order.falling
    names = sorted(f"{letter}ardens" for letter in "abcdefghijklmnop")[::-1]
    by_name = ListOrder(share=0.9, lists=1)
    assert by_name.observe([f"http://site/place/{name}" for name in names], names)
    assert by_name.fixed
    assert not by_name.falling  # names, not keys: no numbering falls


def test_records_without_keys_are_judged_by_their_link_texts() -> None:
    order = ListOrder(share=0.9, lists=1)
    names = sorted(f"{letter}ardens" for letter in "abcdefghijklmnop")
    ids = [f"http://site/place/{name}" for name in names]
    assert order.observe(ids, names) is True
    assert order.fixed
    assert ListOrder().observe(ids[:3], names[:3]) is None  # too short to tell
