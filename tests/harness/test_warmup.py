"""When the warm-up stops: replays of recorded slices (requests/s, the server's processes after
each), fed to warmup.warm_up in place of ab and /proc."""

import pytest

from modelbench.engine import warmup

# Apache warmed up at -c 200 after its -c 20 run (37 processes, 2026-12-03): the first five
# slices recorded, one without a new child after 52; then prefork forking again, 1, 2, 4 ... a
# second, up to its 150 children.
APACHE_C200 = [(1533.5, 38), (1418.7, 40), (1358.4, 44), (1347.0, 52), (1296.8, 52),
               (1290.0, 53), (1280.0, 55), (1260.0, 59), (1240.0, 67), (1220.0, 83),
               (1210.0, 115), (1200.0, 151), (1205.0, 151), (1199.0, 151)]


@pytest.fixture
def replay(monkeypatch):
    def play(slices, before):
        feed, current = iter(slices), {"processes": before}

        def one_slice(*_):
            rate, current["processes"] = next(feed)
            return rate

        monkeypatch.setattr(warmup, "one_slice", one_slice)
        monkeypatch.setattr(warmup, "process_count", lambda _: current["processes"])
        return warmup.warm_up(None, "/html", 200)
    return play


def test_one_slice_without_a_new_child_is_not_the_end_of_the_growth(replay):
    warm = replay(APACHE_C200, before=37)
    assert warm.steady and warm.slices[-1].processes == 151
    assert warm.seconds == 14  # two slices at 151 after the last fork


def test_a_server_that_does_not_fork_is_steady_once_its_rate_agrees(replay):
    warm = replay([(3100.0, 1), (3400.0, 1), (3450.0, 1)], before=1)
    assert warm.steady and warm.seconds == 2


def test_the_warm_up_ends_at_its_cap_when_the_server_keeps_growing(replay):
    warm = replay([(1000.0, 10 + i) for i in range(warmup.MAX_S + 1)], before=9)
    assert not warm.steady and warm.seconds == warmup.MAX_S
