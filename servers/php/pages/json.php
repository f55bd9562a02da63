<?php
// GET /json: the orders table as JSON, with a Content-Length (no chunked encoding), as E4's page.
require __DIR__ . '/workload.php';
serve_from_database('application/json', 'render_orders_json');
