"""When the warm-up and the lead-in stop: replays of recorded slices (requests/s, the server's
processes after each, its CPU ms per request over it) and growth phases (processes at their end,
seconds), fed to warmup.warm_up in place of ab and /proc."""

import pytest

from modelbench.engine import warmup

@pytest.fixture
def replay(monkeypatch):
    def play(slices, before, growths=(), concurrency=200, reference=None):
        feed, grown, current = iter(slices), iter(growths), {"processes": before}

        def one_slice(*_):
            rate, current["processes"], *cpu_ms = next(feed)
            return rate, (cpu_ms or [None])[0]

        def grow(*_):
            current["processes"], seconds = next(grown)
            return current["processes"], seconds

        monkeypatch.setattr(warmup, "one_slice", one_slice)
        monkeypatch.setattr(warmup, "grow", grow)
        monkeypatch.setattr(warmup, "process_count", lambda _: current["processes"])
        monkeypatch.setattr(warmup, "cpu_meter", lambda _: None)
        return warmup.warm_up(None, "/html", concurrency, reference=reference,
                              max_s=warmup.MAX_S if reference is None else warmup.LEAD_MAX_S)
    return play


def test_a_server_that_forks_gets_unbroken_load_until_it_stops(replay):
    # Apache at -c 200 after its -c 20 run (37 processes): its first slice forked a child, so
    # unbroken load until it stopped forking at 151. In 1-s slices alone it went 38, 40, 44, 52,
    # 52 (2026-12-03): in the pause between two slices prefork forks none and starts again from 1.
    warm = replay([(1533.5, 38), (1210.0, 151), (1205.0, 151)], before=37,
                  growths=[(151, 7.5)])
    assert warm.steady and warm.slices[-1].processes == 151
    assert warm.growing_s == 7.5 and warm.seconds == 10.5


def test_a_server_that_does_not_fork_is_steady_once_its_rate_agrees(replay):
    warm = replay([(3100.0, 1), (3400.0, 1), (3450.0, 1)], before=1)
    assert warm.steady and warm.seconds == 2 and warm.growing_s == 0


def test_the_warm_up_ends_at_its_cap_when_the_server_keeps_forking(replay):
    warm = replay([(1000.0, 10 + i) for i in range(20)], before=9,
                  growths=[(10 + i, 2.0) for i in range(20)])
    assert not warm.steady and warm.seconds >= warmup.MAX_S


def test_forking_has_its_own_cap_beside_the_slices(replay):
    # Apache at -c 200 on /hello (E2, 2026-12-03): one slice forked a child, then the load went
    # on while it forked for 14.1 s, to 152 processes. With one cap for both the warm-up ended
    # there; with its own, the slices go on until the rate agrees on the grown server.
    warm = replay([(12306.5, 9), (10400.0, 152), (11000.0, 152)], before=8, growths=[(152, 14.1)])
    assert warm.steady and warm.seconds == 17.1
    assert warm.as_record()["processes_after"] == 152


def test_a_slice_before_the_server_forked_is_no_reference_after(replay):
    # The rate before Apache forked to its size is that of a smaller server: a slice after it
    # that happens to agree with it is not steady.
    warm = replay([(1000.0, 9), (950.0, 152), (1200.0, 152), (1210.0, 152)], before=7,
                  growths=[(152, 11.0)])
    assert warm.steady and len(warm.slices) == 4


def test_a_child_replaced_at_the_cap_is_not_growth(replay):
    # Apache at -c 200 from a fresh start (CI, 2026-12-04): grown to its 150 children (152
    # processes), the next slice counted 153, a child leaving beside its replacement; taken for
    # growth, a second growth phase took the rest of the warm-up and it ended at its cap.
    warm = replay([(1309.0, 9), (1079.0, 152), (1040.0, 153)], before=7, growths=[(152, 11.4)])
    assert warm.steady and warm.growing_s == 11.4 and warm.processes_after == 153


def test_a_server_still_getting_cheaper_is_not_steady(replay):
    # Node.js at -c 20 from a fresh start (a default run, 2026-12-04): its third slice's rate
    # agreed with the second's (+9.9 %) while its CPU per request still fell 15.5 %, as its JIT
    # compiled the handlers.
    warm = replay([(1103.0, 1, 1.00), (1279.0, 1, 0.84), (1406.0, 1, 0.71), (1418.0, 1, 0.71)],
                  before=1, concurrency=20)
    assert warm.steady and len(warm.slices) == 4 and warm.slices[-1].cpu_ms_per_request == 0.71


def test_a_server_getting_dearer_is_not_warming(replay):
    # The async model at -c 200 (2026-12-04): its CPU per request rose 17 % between two slices
    # whose rates agreed, the noise of 10-ms ticks; a server still warming gets cheaper.
    warm = replay([(3301.0, 1, 0.17), (3436.0, 1, 0.20)], before=1)
    assert warm.steady and len(warm.slices) == 2


def test_a_fall_in_cpu_per_request_within_the_noise_is_steady(replay):
    warm = replay([(3301.0, 1, 0.21), (3436.0, 1, 0.192)], before=1)
    assert warm.steady and len(warm.slices) == 2


def test_the_progress_line_gives_the_rates_the_last_cpu_and_the_processes(replay):
    warm = replay([(640.0, 1, 1.53), (1000.0, 1, 0.84), (1020.0, 1, 0.80)], before=1)
    assert warm.describe(local=True) == \
        "3 s, 640 → 1000 → 1020 req/s, 0.800 ms CPU/req, processes 1 → 1"
    assert warm.describe(local=False) == "3 s, 640 → 1000 → 1020 req/s, 0.800 ms CPU/req"


def test_spare_workers_coming_and_going_are_not_growth(replay):
    # Apache at -c 20 in round 2 (2026-12-04): grown to 28 processes, it went 29, 31, 30, 31 as
    # prefork kept between 5 and 10 children idle, and each rise started a growth phase: 15.6 s.
    warm = replay([(1244.0, 14, 0.77), (1165.0, 28, 0.88), (1134.0, 29, 0.95)],
                  before=13, growths=[(28, 7.6)], concurrency=20)
    assert warm.steady and warm.growing_s == 7.6 and warm.seconds == 10.6


# A lead-in: the run before at this point (a measured run's figures) is its reference.
NODE_AT_C1 = warmup.measured_slice({"requests_per_s": 1050.0, "server_peak_processes": 1,
                                    "server_cpu_s": 1.554, "complete": 2100})  # 0.74 ms


def test_a_lead_in_as_cheap_as_the_run_before_is_one_slice_whatever_its_rate(replay):
    # The host slowed the rate, not the server: the CPU per request says it is as warm as before.
    warm = replay([(880.0, 1, 0.76)], before=1, concurrency=1, reference=NODE_AT_C1)
    assert warm.steady and len(warm.slices) == 1 and warm.seconds == warmup.LEAD_S


def test_a_cooled_server_is_led_in_until_it_is_as_cheap_as_before(replay):
    # Node.js after 40 s idle (2026-12-04): a first slice at 0.95 ms, the next at 0.74. Its rate
    # agreed with the run before within 10 %, which alone let round 2 of a default run start cold.
    warm = replay([(990.0, 1, 0.95), (1040.0, 1, 0.76)], before=1, concurrency=1,
                  reference=NODE_AT_C1)
    assert warm.steady and len(warm.slices) == 2 and warm.slices[-1].cpu_ms_per_request == 0.76


def test_a_lead_in_on_a_slower_host_ends_once_the_cost_stops_falling(replay):
    warm = replay([(700.0, 1, 1.10), (690.0, 1, 1.12)], before=1, concurrency=1,
                  reference=NODE_AT_C1)
    assert warm.steady and len(warm.slices) == 2


def test_a_lead_in_that_forks_grows_the_server_again(replay):
    # Apache at -c 200 let children go while the other servers of its block ran.
    apache = warmup.measured_slice({"requests_per_s": 1100.0, "server_peak_processes": 152,
                                    "server_cpu_s": 2.2, "complete": 2200})
    warm = replay([(900.0, 131, 1.2), (1080.0, 152, 1.0)], before=120, growths=[(152, 2.5)],
                  reference=apache)
    assert warm.steady and warm.growing_s == 2.5 and warm.processes_after == 152


def test_a_lead_in_has_its_own_cap(replay):
    # Still getting cheaper by 12 % a slice and dearer than before at every one of them.
    warm = replay([(1000.0, 1, 3.0 * 0.88 ** i) for i in range(20)], before=1, concurrency=1,
                  reference=NODE_AT_C1)
    assert not warm.steady and warm.seconds == warmup.LEAD_MAX_S


def test_a_server_that_stalls_now_and_then_has_answered_though_its_last_slice_did_not(replay):
    # node4-native's first warm-up at -c 200 in a --standard run (requests/s a slice, 1 process).
    rates = (97.8, 0.0, 138.6, 6.9, 0.0, 153.2, 10.9, 0.0, 184.3, 7.0, 0.0, 134.8, 0.0, 124.0,
             0.0)
    warm = replay([(r, 1) for r in rates], before=1)
    assert warm.rate == 0.0 and not warm.steady
    assert warm.answered
    assert not replay([(0.0, 1)] * len(rates), before=1).answered
