<?php
// GET /hello: E2's handler, an empty loop to 10, then "Hello World! 10\n". Self-contained: the
// cheapest page stays as small as the post's.
for ($i = 0; $i < 10; $i++);
$body = "Hello World! $i\n";
header('Content-Type: text/plain; charset=utf-8');
header('Content-Length: ' . strlen($body));
echo $body;
