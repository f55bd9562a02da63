// Response bodies: the /html page, the /json array, /hello, and the index page.
#pragma once

#include "common/db/mysql_client.hpp"
#include "common/text_buffer.hpp"

#include <string>
#include <string_view>

namespace mb {

// E2's body: an empty loop to 10, then this text.
inline constexpr std::string_view kHelloBody = "Hello World! 10\n";

// text with & < > " ' replaced by character references. Bytes >= 0x80 pass through, so UTF-8
// stays intact.
std::string html_escape(std::string_view text);

// Both tables as one HTML page: a <table> each, a header row in <thead>, one <tr> per row in
// <tbody>, every cell escaped. NULL is always an empty cell, <td></td>. Rendered straight from
// the rows into one buffer sized from the row counts.
TextBuffer render_html_page(RowSource& products, RowSource& orders);

// The orders table as a JSON array of {"id","note","placed"} objects: id a number, note a string
// or null. Strings are escaped as JSON requires; invalid UTF-8 from the database becomes U+FFFD
// (each maximal invalid subsequence one U+FFFD) instead of an error mid-request.
TextBuffer render_orders_json(RowSource& orders);

// GET /: the endpoints, and which model answers them.
std::string render_index_page(std::string_view server_name, std::string_view model_description);

}  // namespace mb
