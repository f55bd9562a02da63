"""PNG plots of a results directory, drawn by gnuplot: E1b requests/s and latency by concurrency
for each server (medians over the rounds; a real system in a solid line, its model dashed in
the same colour, the model calibrated dotted), and the CPU split of the heaviest run of each
experiment. Data and gnuplot scripts stay in plots/ so a plot can be redrawn or restyled by
hand; E5's plot is modelbench.reproduce.e5's.
"""

import os
import subprocess

from modelbench.reproduce.plan import CONCURRENCIES, PAIRS

TERMINAL = "set terminal pngcairo size 900,560 font 'sans,10'"
# Each pair (model, real system) one colour, the model calibrated too (its key is KEY-cal).
PAIR_COLORS = ("#c0392b", "#2471a3", "#1e8449")
COLORS = {server: color for pair, color in zip(PAIRS, PAIR_COLORS)
          for server in (*pair, f"{pair[0]}-cal")}
SERVERS = [server for model, real in PAIRS for server in (real, model, f"{model}-cal")]


def directory(results):
    """plots/ of the results directory, made when missing: the plots' data and scripts."""
    path = os.path.join(results.directory, "plots")
    os.makedirs(path, exist_ok=True)
    return path


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


def _e1b_data(results):
    """One line per concurrency: median rps, mean and p99 of each server ('-' when not
    measured)."""
    lines = ["# concurrency " + " ".join(f"{s}_rps {s}_mean_ms {s}_p99_ms" for s in SERVERS)]
    for c in CONCURRENCIES:
        cells = [str(c)]
        for server in SERVERS:
            for key in ("requests_per_s", "mean_ms", "p99_ms"):
                value = results.figure(f"e1b-{server}-c{c}", key)
                cells.append("-" if value is None else str(value))
        lines.append(" ".join(cells))
    return "\n".join(lines) + "\n"


def _e1b_scripts(results, data):
    measured = [s for s in SERVERS
                if any(results.figure(f"e1b-{s}-c{c}", "requests_per_s") for c in CONCURRENCIES)]
    common = "\n".join([
        TERMINAL,
        "set datafile missing '-'",
        "set logscale x",
        "set xtics ('1' 1, '20' 20, '200' 200)",
        "set xrange [0.7:300]",
        "set xlabel 'concurrent clients (ab -c)'",
        "set grid",
        "set key outside right top",
    ])
    rps_plots, latency_plots = [], []
    for server in measured:
        column = 2 + 3 * SERVERS.index(server)
        color, label = COLORS[server], results.label(server)
        dash = ("dt 1" if server in dict(PAIRS).values() else
                "dt 3" if server.endswith("-cal") else "dt 2")
        rps_plots.append(f"'{data}' using 1:{column} with linespoints lw 2 {dash} pt 7 "
                         f"lc rgb '{color}' title '{label}'")
        latency_plots.append(f"'{data}' using 1:{column + 1} with linespoints lw 2 {dash} pt 7 "
                             f"lc rgb '{color}' title '{label}, mean'")
        latency_plots.append(f"'{data}' using 1:{column + 2} with linespoints lw 1 {dash} pt 6 "
                             f"lc rgb '{color}' title '{label}, p99'")
    rps = "\n".join([
        common,
        "set output 'e1b-requests-per-s.png'",
        "set title 'E1b: /html under ab, requests per second'",
        "set ylabel 'requests/s'",
        "set yrange [0:*]",
        "plot " + ", \\\n     ".join(rps_plots),
    ]) + "\n"
    latency = "\n".join([
        common,
        "set output 'e1b-latency.png'",
        "set title 'E1b: /html under ab, response time'",
        "set ylabel 'ms (log scale)'",
        "set logscale y",
        "plot " + ", \\\n     ".join(latency_plots),
    ]) + "\n"
    return rps, latency, bool(measured)


def _cpu_rows(results):
    """The heaviest run of each experiment and server: (label, server, db, client, other) in %
    of the machine."""
    systems = ("php", "blocking", "node", "async")
    candidates = [(f"e1b-{s}-c200", f"E1b {results.label(s)}") for s in SERVERS]
    candidates += [(f"e2-{s}", f"E2 {s}") for s in systems]
    candidates += [(f"e3-{s}-l", f"E3 {s}") for s in systems]
    candidates += [(f"e4-siege1000-{s}", f"E4 {s}") for s in systems]
    rows = []
    for run_id, label in candidates:
        parts = [results.figure(run_id, f"{who}_cpu_pct_machine")
                 for who in ("server", "db", "client")]
        busy = results.figure(run_id, "machine_busy_pct")
        if None in parts or busy is None:
            continue
        rows.append((label, *parts, max(0.0, busy - sum(parts))))
    return rows


def _cpu_script(data):
    return "\n".join([
        TERMINAL,
        "set output 'cpu-split.png'",
        "set title 'CPU during the heaviest run of each experiment (% of the machine)'",
        "set datafile separator '\\t'",
        "set style data histograms",
        "set style histogram rowstacked",
        "set style fill solid 0.85 border -1",
        "set boxwidth 0.7",
        "set yrange [0:105]",
        "set ylabel '% of all cores'",
        "set xtics rotate by -30",
        "set grid ytics",
        "set key outside right top",
        f"plot '{data}' using 2:xtic(1) title 'server' lc rgb '#2471a3', \\",
        "     '' using 3 title 'mariadbd' lc rgb '#d68910', \\",
        "     '' using 4 title 'load tool (ab/siege)' lc rgb '#7d3c98', \\",
        "     '' using 5 title 'other' lc rgb '#aab7b8'",
    ]) + "\n"


def draw(results, more=()):
    """Draws every plot that has data, and the jobs (script name, script) of more: an
    experiment's own plots, their data already in plots/. Returns the error messages (none when
    all went well)."""
    # Paths in the scripts are relative to the results directory, where gnuplot runs and the
    # PNGs land, so the folder can be moved and a plot redrawn with `gnuplot plots/NAME.gp`.
    plot_dir = directory(results)
    jobs = []
    _write(os.path.join(plot_dir, "e1b.dat"), _e1b_data(results))
    rps, latency, measured = _e1b_scripts(results, "plots/e1b.dat")
    if measured:
        jobs += [("e1b-requests-per-s.gp", rps), ("e1b-latency.gp", latency)]
    rows = _cpu_rows(results)
    if rows:
        _write(os.path.join(plot_dir, "cpu-split.dat"),
               "# label\tserver\tmariadbd\tclient\tother\n" +
               "".join("\t".join([f'"{r[0]}"'] + [f"{v:.1f}" for v in r[1:]]) + "\n" for r in rows))
        jobs.append(("cpu-split.gp", _cpu_script("plots/cpu-split.dat")))
    return render(results.directory, [*jobs, *more])


def render(directory, jobs):
    """Writes each (name, script) to plots/ and runs gnuplot on it in directory; returns the
    error messages."""
    errors = []
    for name, script in jobs:
        _write(os.path.join(directory, "plots", name), script)
        result = subprocess.run(["gnuplot", os.path.join("plots", name)], capture_output=True,
                                text=True, timeout=60, cwd=directory)
        if result.returncode != 0:
            errors.append(f"gnuplot {name}: {result.stderr.strip()}")
    return errors
