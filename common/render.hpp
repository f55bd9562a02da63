// Response bodies: the /html page, the /json array, /hello, and the index page.
#pragma once

#include "common/workload.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace mb {

// E2's body: an empty loop to 10, then this text.
inline constexpr std::string_view kHelloBody = "Hello World! 10\n";

// Appends text with & < > " ' replaced by character references. Bytes >= 0x80 pass through,
// so UTF-8 stays intact.
void append_html_escaped(std::string& out, std::string_view text);
std::string html_escape(std::string_view text);

// Both tables as one HTML page: a <table> each, a header row in <thead>, one <tr> per row in
// <tbody>. NULL is always an empty cell, <td></td>.
std::string render_html_page(const std::vector<Product>& products, const std::vector<Order>& orders);

// The orders table as a JSON array of {"id","placed","note"} objects (note may be null).
std::string render_orders_json(const std::vector<Order>& orders);

// GET /: the endpoints, and which model answers them.
std::string render_index_page(std::string_view server_name, std::string_view model_description);

}  // namespace mb
