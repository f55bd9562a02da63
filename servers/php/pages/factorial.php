<?php
// GET /factorial: n! with all its digits for a random n in 10..40 (E3), or ?n= in 0..20000 (E9's heavy request).
require __DIR__ . '/workload.php';
try {
    $n = integer_parameter('n', 20000, 'n must be an integer from 0 to 20000') ?? random_int(10, 40);
    respond(200, 'text/plain; charset=utf-8', "$n! = " . factorial_digits($n) . "\n");
} catch (BadParameter $e) {
    respond(400, 'text/plain; charset=utf-8', $e->getMessage() . "\n");
}
