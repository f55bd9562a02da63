"""When a server's own /status CPU and /proc's agree: clock-tick truncation on short runs, a
share of longer ones."""

from modelbench.engine.serverstatus import agree


def test_three_ticks_a_process_agree_on_a_short_run():
    assert agree(0.29, 0.2695)  # a smoke siege run: /proc's ticks against getrusage
    assert not agree(0.29, 0.25)
    assert agree(0.50, 0.43, processes=3)


def test_a_long_run_agrees_within_five_percent():
    assert agree(10.0, 10.45) and not agree(10.0, 10.6)
