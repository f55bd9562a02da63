<?php
// GET /tasks: E4's deferred-task demo on the blocking side. Task two is a sleep of this Apache
// child, so the response goes out only after it, as the blocking model's worker waits
// (?delay_ms= 0..10000, default 2000). The task lines go to the child's stderr, which is Apache's
// error log, as "HH:MM:SS.mmm tasks #N: task one" (UTC) like the C++ servers' lines; N is the
// child's pid, as prefork's children share no counter.
require __DIR__ . '/workload.php';

const DEFAULT_TASK_DELAY_MS = 2000;

function log_task(string $task): void
{
    $now = DateTime::createFromFormat('U.u', sprintf('%.6F', microtime(true)));
    file_put_contents('php://stderr', $now->format('H:i:s.v') . ' tasks #' . getmypid() . ": $task\n");
}

try {
    $delay_ms = integer_parameter('delay_ms', MAX_DELAY_MS, 'delay_ms must be an integer from 0 to 10000')
        ?? DEFAULT_TASK_DELAY_MS;
} catch (BadParameter $e) {
    respond(400, 'text/plain; charset=utf-8', $e->getMessage() . "\n");
    return;
}
log_task('task one');
usleep($delay_ms * 1000);
log_task('task two');
log_task('task three');
respond(200, 'text/plain; charset=utf-8', "task one\ntask two (after $delay_ms ms)\ntask three\n"
    . "task two ran before this response: the worker waited for it\n");
