"""Each server against the database's own ceiling (scripts/bench.sh): the runs and their report."""
