<?php
// GET /html: both tables of sampledb, two queries on a new connection, as two HTML tables.
require __DIR__ . '/workload.php';
serve_from_database('text/html; charset=utf-8', 'render_html_page');
