-- wrk's figures after its run as one line of JSON on stdout (scripts/modelbench/engine/loads/wrk.py
-- reads it): exact counts and the latency distribution in microseconds, where wrk's own text
-- rounds them and changes units.
done = function(summary, latency, requests)
    local errors = summary.errors
    io.write(string.format(
        'WRK_SUMMARY {"requests": %d, "duration_us": %d, "bytes": %d, "connect_errors": %d, ' ..
        '"read_errors": %d, "write_errors": %d, "non2xx": %d, "timeouts": %d, ' ..
        '"mean_us": %.1f, "max_us": %d, "p50_us": %d, "p90_us": %d, "p99_us": %d}\n',
        summary.requests, summary.duration, summary.bytes, errors.connect, errors.read,
        errors.write, errors.status, errors.timeout, latency.mean, latency.max,
        latency:percentile(50), latency:percentile(90), latency:percentile(99)))
end
