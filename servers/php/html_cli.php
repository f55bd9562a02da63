<?php
// E1a's standalone run: the /html workload N times in one process, a new connection per
// iteration as the web page opens one per request. Time it from outside: time php html_cli.php 1000
// Progress goes to stderr; the last line on stdout says what ran. Exit 1 on a database failure,
// 2 on a bad argument.
require __DIR__ . '/pages/workload.php';

$arg = $argv[1] ?? '1000';
if ($argc > 2 || preg_match('/^[1-9][0-9]{0,8}$/', $arg) !== 1) {
    fwrite(STDERR, "usage: php html_cli.php [N]   (N iterations, 1..999999999, default 1000)\n");
    exit(2);
}
$iterations = (int) $arg;
$step = max(1, intdiv($iterations, 10));
$page = '';
try {
    for ($done = 1; $done <= $iterations; ++$done) {
        $db = db_connect();
        $page = render_html_page($db);
        $db->close();
        if ($done % $step === 0 || $done === $iterations) {
            fwrite(STDERR, "standalone: $done/$iterations\n");
        }
    }
} catch (RuntimeException $e) {
    fwrite(STDERR, 'html_cli.php: standalone run failed: ' . $e->getMessage() . "\n");
    exit(1);
}
printf("standalone: %d iterations of the /html workload (2 queries, %d bytes rendered each), php\n",
    $iterations, strlen($page));
