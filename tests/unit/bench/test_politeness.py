"""The politeness measured from a proxy log: in flight at once, starts a second."""

from deepcrawl.bench.politeness import measure


def _entry(start: float, end: float, *, asset: bool = False) -> dict[str, object]:
    return {"start": start, "end": end, "asset": asset, "path": "/", "status": 200}


def test_overlapping_requests_count_in_flight_and_assets_do_not() -> None:
    log = [_entry(0.0, 1.0), _entry(0.5, 1.5), _entry(0.6, 0.7, asset=True), _entry(1.0, 2.0)]
    found = measure(log)
    # at 1.0 the first answer is out as the third request comes: two at once, never three
    assert (found.requests, found.max_in_flight) == (3, 2)


def test_the_rate_is_the_most_starts_in_a_second_and_in_ten() -> None:
    starts = [i * 0.5 for i in range(40)]  # 2 a second for 20 s
    found = measure([_entry(t, t + 0.1) for t in starts])
    assert found.max_per_s == 2
    assert found.max_per_10s == 2.0
    burst = measure([_entry(t, t + 0.1) for t in [0.0, 0.1, 0.2, 5.0]])
    assert (burst.max_per_s, burst.max_per_10s) == (3, 0.4)


def test_an_empty_log_or_one_without_times_measures_nothing() -> None:
    assert measure([]).max_in_flight == 0
    assert measure([{"path": "/", "asset": False}]).requests == 0
