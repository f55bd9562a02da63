<?php
// The blog's /html and /json workload against sampledb, shared by the pages and html_cli.php.
// Every body is byte for byte what the C++ servers send (common/render.cpp).
declare(strict_types=1);

const PRODUCTS_QUERY = 'SELECT id, name, price FROM products ORDER BY id';
const ORDERS_QUERY = 'SELECT id, placed, note FROM orders ORDER BY id';
const MAX_DELAY_MS = 10000;

const PAGE_HEAD = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Sample database</title></head>"
    . "<body>\n<h1>Products</h1>\n<table>\n<thead><tr><th>id</th><th>name</th><th>price</th></tr>"
    . "</thead>\n<tbody>\n";
const PAGE_MIDDLE = "</tbody>\n</table>\n<h1>Orders</h1>\n<table>\n<thead><tr><th>id</th><th>placed</th>"
    . "<th>note</th></tr></thead>\n<tbody>\n";
const PAGE_TAIL = "</tbody>\n</table>\n</body></html>\n";
// strtr() works on bytes, so UTF-8 (and any other byte) passes through as the C++ servers pass it;
// htmlspecialchars() would write &#039; and replace ill-formed UTF-8.
const HTML_ESCAPES = ['&' => '&amp;', '<' => '&lt;', '>' => '&gt;', '"' => '&quot;', "'" => '&#39;'];

final class DatabaseUnavailable extends RuntimeException {}
final class BadParameter extends RuntimeException {}

// A MYSQL_* setting: the web server passes them with SetEnv, the command line's environment
// reaches html_cli.php as it is.
function db_setting(string $name, string $default): string
{
    $value = getenv($name);
    return $value === false ? $default : $value;
}

// A new connection, as the blog's script opened one per request. Throws DatabaseUnavailable.
function db_connect(): mysqli
{
    $socket = db_setting('MYSQL_UNIX_PORT', '');
    $db = mysqli_init();
    // In the handshake, not a SET NAMES round trip: the 4-byte emoji of sampledb need utf8mb4.
    $db->options(MYSQLI_SET_CHARSET_NAME, 'utf8mb4');
    try {
        $db->real_connect(
            $socket !== '' ? 'localhost' : db_setting('MYSQL_HOST', '127.0.0.1'),
            db_setting('MYSQL_USER', 'bench'),
            db_setting('MYSQL_PWD', 'bench'),
            db_setting('MYSQL_DATABASE', 'sampledb'),
            (int) db_setting('MYSQL_TCP_PORT', '3307'),
            $socket !== '' ? $socket : null
        );
    } catch (mysqli_sql_exception $e) {
        throw new DatabaseUnavailable($e->getMessage(), 0, $e);
    }
    return $db;
}

// ?delay_ms=: the emulated slow database, SELECT SLEEP on this request's connection.
function db_sleep(mysqli $db, int $delay_ms): void
{
    if ($delay_ms > 0) {
        $db->query(sprintf('SELECT SLEEP(%d.%03d)', intdiv($delay_ms, 1000), $delay_ms % 1000));
    }
}

function html_cell(?string $text): string
{
    return $text === null ? '' : strtr($text, HTML_ESCAPES);
}

function html_rows(mysqli_result $result): string
{
    $rows = '';
    while (($row = $result->fetch_row()) !== null) {
        $rows .= '<tr><td>' . html_cell($row[0]) . '</td><td>' . html_cell($row[1]) . '</td><td>'
            . html_cell($row[2]) . "</td></tr>\n";
    }
    $result->free();
    return $rows;
}

// /html: both tables, two queries on the one connection, rendered as two HTML tables.
function render_html_page(mysqli $db): string
{
    $products = html_rows($db->query(PRODUCTS_QUERY));
    $orders = html_rows($db->query(ORDERS_QUERY));
    return PAGE_HEAD . $products . PAGE_MIDDLE . $orders . PAGE_TAIL;
}

// Ill-formed UTF-8 as the C++ servers' JSON writer replaces it: each maximal ill-formed
// subsequence becomes one U+FFFD (json_encode's own substitution counts differently).
function utf8_scrub(string $text): string
{
    $out = '';
    $length = strlen($text);
    for ($i = 0; $i < $length;) {
        $lead = ord($text[$i]);
        if ($lead < 0x80) {
            $out .= $text[$i++];
            continue;
        }
        [$size, $low, $high] = match (true) {
            $lead >= 0xC2 && $lead <= 0xDF => [2, 0x80, 0xBF],
            $lead >= 0xE0 && $lead <= 0xEF => [3, $lead === 0xE0 ? 0xA0 : 0x80, $lead === 0xED ? 0x9F : 0xBF],
            $lead >= 0xF0 && $lead <= 0xF4 => [4, $lead === 0xF0 ? 0x90 : 0x80, $lead === 0xF4 ? 0x8F : 0xBF],
            default => [1, 0, 0],
        };
        $valid = 1;
        while ($valid < $size && $i + $valid < $length) {
            $byte = ord($text[$i + $valid]);
            if ($byte < ($valid === 1 ? $low : 0x80) || $byte > ($valid === 1 ? $high : 0xBF)) {
                break;
            }
            ++$valid;
        }
        $out .= $size > 1 && $valid === $size ? substr($text, $i, $size) : "\u{FFFD}";
        $i += $valid;
    }
    return $out;
}

// /json: the orders table as an array of {"id","note","placed"} objects.
function render_orders_json(mysqli $db): string
{
    $result = $db->query(ORDERS_QUERY);
    $orders = [];
    while (($row = $result->fetch_row()) !== null) {
        $note = $row[2];
        if ($note !== null && preg_match('//u', $note) !== 1) {
            $note = utf8_scrub($note);
        }
        $orders[] = ['id' => (int) $row[0], 'note' => $note, 'placed' => $row[1]];
    }
    $result->free();
    return json_encode(
        $orders,
        JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_UNESCAPED_LINE_TERMINATORS | JSON_THROW_ON_ERROR
    );
}

// n! with every digit: little-endian limbs in base 10^9, as common/factorial.cpp.
function factorial_digits(int $n): string
{
    $limbs = [1];
    for ($k = 2; $k <= $n; ++$k) {
        $carry = 0;
        $count = count($limbs);
        for ($i = 0; $i < $count; ++$i) {
            $product = $limbs[$i] * $k + $carry;
            $limbs[$i] = $product % 1000000000;
            $carry = intdiv($product, 1000000000);
        }
        while ($carry !== 0) {
            $limbs[] = $carry % 1000000000;
            $carry = intdiv($carry, 1000000000);
        }
    }
    $digits = (string) $limbs[count($limbs) - 1];
    for ($i = count($limbs) - 2; $i >= 0; --$i) {
        $digits .= sprintf('%09d', $limbs[$i]);
    }
    return $digits;
}

// The integer query parameter $name in 0..$max, as the C++ router reads it: plain decimal digits,
// every occurrence checked, the last one wins; null when absent. Throws BadParameter.
function integer_parameter(string $name, int $max, string $message): ?int
{
    $value = null;
    foreach (explode('&', $_SERVER['QUERY_STRING'] ?? '') as $pair) {
        if ($pair === '') {
            continue;
        }
        if (preg_match('/%(?![0-9A-Fa-f]{2})/', $pair) === 1) {
            throw new BadParameter('malformed percent-encoding in the query');
        }
        $parts = explode('=', $pair, 2);
        if (urldecode($parts[0]) !== $name) {
            continue;
        }
        $text = urldecode($parts[1] ?? '');
        if (preg_match('/^[0-9]+$/', $text) !== 1 || (int) $text > $max) {
            throw new BadParameter($message);
        }
        $value = (int) $text;
    }
    return $value;
}

function delay_parameter(): int
{
    return integer_parameter('delay_ms', MAX_DELAY_MS, 'delay_ms must be an integer from 0 to 10000') ?? 0;
}

// Every response has its Content-Length: no chunked encoding, as the C++ servers.
function respond(int $status, string $content_type, string $body): void
{
    http_response_code($status);
    header('Content-Type: ' . $content_type);
    header('Content-Length: ' . strlen($body));
    echo $body;
}

// A page that reads the database: its body from $render, the errors as the C++ servers answer them.
function serve_from_database(string $content_type, callable $render): void
{
    try {
        $delay_ms = delay_parameter();
        $db = db_connect();
        try {
            db_sleep($db, $delay_ms);
            $body = $render($db);
        } finally {
            $db->close();
        }
        respond(200, $content_type, $body);
    } catch (BadParameter $e) {
        respond(400, 'text/plain; charset=utf-8', $e->getMessage() . "\n");
    } catch (DatabaseUnavailable $e) {
        error_log('database unavailable: ' . $e->getMessage());
        header('Retry-After: 1');
        respond(503, 'text/plain; charset=utf-8', "database unavailable\n");
    } catch (mysqli_sql_exception $e) {
        error_log('database query failed: ' . $e->getMessage());
        respond(500, 'text/plain; charset=utf-8', "database query failed\n");
    }
}
