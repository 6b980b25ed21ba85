"""What the crawl knows of the records it reached and fetched: their ids, their words."""

from __future__ import annotations

from deepcrawl.querying import KnownTexts, QueryLoop, main_text
from deepcrawl.settings import Settings
from tests.unit.querying.answers import record


def test_records_reached_by_links_are_not_new_to_later_queries() -> None:
    loop = QueryLoop(Settings(), frequent=["tea"], stop_words=set())
    assert loop.facts.observe({"r1", "r2"}, {"r1": "green tea", "r2": ""}) == 2
    assert loop.facts.observe({"r2"}) == 0
    assert loop.words.term_df["green"] == 1
    outcome = record(loop, "tea", {"r1", "r2", "r3"})
    assert outcome.new == 1
    assert len(loop.ledger.history) == 1


def test_main_text_leaves_out_the_frame_and_other_records() -> None:
    html = (
        "<html><head><title>Salt · Shop</title></head><body><header><a href='/'>Home</a></header>"
        "<nav>Browse</nav><main><h1>Sea salt</h1><p>Coarse crystals from the bay.</p>"
        "<ul><li><a href='/item/2'>Pepper</a> black and ground</li></ul>"
        "<form><button>Add to cart</button></form></main><footer>About us</footer></body></html>"
    )
    words = set(main_text(html).casefold().split())
    assert {"sea", "salt", "coarse", "bay."} <= words
    assert not words & {"home", "browse", "pepper", "ground", "cart", "about"}


def test_known_texts_count_what_a_query_lacks() -> None:
    texts = KnownTexts()
    for i in range(30):
        texts.add(f"r{i}", f"record {i} about tea" if i < 12 else f"record {i} about coffee")
    texts.add("r0", "a second text is ignored: milk")
    assert texts.holding("tea") == 12
    assert texts.holding("milk") == 0
    assert texts.holding("record") is None  # on every page: chrome, no evidence
    assert texts.holding("green tea") is None  # a phrase: the site's matching is unknown
    assert texts.unknown_left("tea", 20, {"r1", "r2", "x1", "x2"}) == 6
    assert texts.unknown_left("tea", 10, ()) is None  # 12 fetched hold it, 10 returned: no measure
    assert texts.unknown_left("tea", None, ()) is None


def test_a_form_around_the_whole_page_is_no_frame_its_controls_are() -> None:
    from pathlib import Path

    record = Path(__file__).parents[2] / "data" / "real" / "webforms" / "record.html"
    text = main_text(record.read_bytes())
    assert "Accession" in text or "accession" in text.casefold()
    assert len(text.split()) > 60  # the record's paragraphs, not only the words around the form
    small = "<main><p>" + "word " * 50 + "</p><form><label>Find</label><input name=q></form></main>"
    assert "Find" not in main_text(small)  # a search box beside the content stays frame
