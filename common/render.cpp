#include "common/render.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>

namespace mb {
namespace {

// The replacement for each byte, empty for bytes copied as they are.
constexpr std::array<std::string_view, 256> make_escape_table() {
    std::array<std::string_view, 256> table{};
    table['&'] = "&amp;";
    table['<'] = "&lt;";
    table['>'] = "&gt;";
    table['"'] = "&quot;";
    table['\''] = "&#39;";
    return table;
}
constexpr auto kEscapes = make_escape_table();

void append_number(std::string& out, std::uint32_t value) {
    char digits[16];
    const auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    out.append(digits, end);
}

void append_cell(std::string& out, std::string_view text) {
    out += "<td>";
    append_html_escaped(out, text);
    out += "</td>";
}

void append_number_cell(std::string& out, std::uint32_t value) {
    out += "<td>";
    append_number(out, value);
    out += "</td>";
}

}  // namespace

void append_html_escaped(std::string& out, std::string_view text) {
    std::size_t plain_from = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const std::string_view replacement = kEscapes[static_cast<unsigned char>(text[i])];
        if (!replacement.empty()) {
            out.append(text.data() + plain_from, i - plain_from);
            out += replacement;
            plain_from = i + 1;
        }
    }
    out.append(text.data() + plain_from, text.size() - plain_from);
}

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    append_html_escaped(out, text);
    return out;
}

std::string render_html_page(const std::vector<Product>& products, const std::vector<Order>& orders) {
    std::string out;
    out.reserve(512 + 64 * (products.size() + orders.size()));
    out +=
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Sample database</title></head>"
        "<body>\n<h1>Products</h1>\n<table>\n<thead><tr><th>id</th><th>name</th><th>price</th></tr>"
        "</thead>\n<tbody>\n";
    for (const Product& p : products) {
        out += "<tr>";
        append_number_cell(out, p.id);
        append_cell(out, p.name);
        append_cell(out, p.price);
        out += "</tr>\n";
    }
    out +=
        "</tbody>\n</table>\n<h1>Orders</h1>\n<table>\n<thead><tr><th>id</th><th>placed</th>"
        "<th>note</th></tr></thead>\n<tbody>\n";
    for (const Order& o : orders) {
        out += "<tr>";
        append_number_cell(out, o.id);
        append_cell(out, o.placed);
        append_cell(out, o.note ? std::string_view(*o.note) : std::string_view{});
        out += "</tr>\n";
    }
    out += "</tbody>\n</table>\n</body></html>\n";
    return out;
}

std::string render_orders_json(const std::vector<Order>& orders) {
    nlohmann::json array = nlohmann::json::array();
    for (const Order& o : orders) {
        array.push_back({{"id", o.id},
                         {"placed", o.placed},
                         {"note", o.note ? nlohmann::json(*o.note) : nlohmann::json(nullptr)}});
    }
    // Invalid UTF-8 from the database becomes U+FFFD instead of an exception mid-request.
    return array.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string render_index_page(std::string_view server_name, std::string_view model_description) {
    std::string out =
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>modelbench</title></head>"
        "<body>\n<h1>modelbench</h1>\n<p>";
    // The one line that names the server: both servers' pages are identical except for it.
    append_html_escaped(out, server_name);
    out += ", model ";
    append_html_escaped(out, model_description);
    out +=
        "</p>\n<ul>\n"
        "<li><a href=\"/html\">/html</a>: both tables, two queries, rendered as HTML "
        "(?delay_ms= adds SELECT SLEEP)</li>\n"
        "<li><a href=\"/json\">/json</a>: the orders table as JSON (?delay_ms=)</li>\n"
        "<li><a href=\"/hello\">/hello</a>: Hello World! 10</li>\n"
        "<li><a href=\"/factorial\">/factorial</a>: n! for a random n in 10..40 (?n=0..1000)</li>\n"
        "<li><a href=\"/tasks\">/tasks</a>: the deferred-task demo (?delay_ms=, default 2000)</li>\n"
        "<li><a href=\"/status\">/status</a>: counters as JSON</li>\n"
        "</ul>\n</body></html>\n";
    return out;
}

}  // namespace mb
