#include "common/workload.hpp"

#include <charconv>
#include <cstdio>
#include <stdexcept>
#include <string_view>

namespace mb {
namespace {

template <typename Int>
Int to_integer(const char* text, unsigned long length) {
    Int value{};
    if (text == nullptr ||
        std::from_chars(text, text + length, value).ec != std::errc()) {
        throw std::runtime_error("unexpected non-integer value in a result row");
    }
    return value;
}

std::string to_string(const char* text, unsigned long length) {
    if (text == nullptr) {
        throw std::runtime_error("unexpected NULL in a NOT NULL column");
    }
    return std::string(text, length);
}

void expect_columns(MYSQL_RES* result, unsigned count) {
    if (result == nullptr || mysql_num_fields(result) != count) {
        throw std::runtime_error("unexpected result shape from the sample database");
    }
}

}  // namespace

std::string sleep_query(unsigned delay_ms) {
    char sql[48];
    std::snprintf(sql, sizeof sql, "SELECT SLEEP(%u.%03u)", delay_ms / 1000, delay_ms % 1000);
    return sql;
}

std::vector<Product> read_products(MYSQL_RES* result) {
    expect_columns(result, 3);
    std::vector<Product> rows;
    rows.reserve(mysql_num_rows(result));
    while (MYSQL_ROW row = mysql_fetch_row(result)) {
        const unsigned long* len = mysql_fetch_lengths(result);
        rows.push_back(Product{to_integer<std::uint32_t>(row[0], len[0]), to_string(row[1], len[1]),
                               to_string(row[2], len[2])});
    }
    return rows;
}

std::vector<Order> read_orders(MYSQL_RES* result) {
    expect_columns(result, 3);
    std::vector<Order> rows;
    rows.reserve(mysql_num_rows(result));
    while (MYSQL_ROW row = mysql_fetch_row(result)) {
        const unsigned long* len = mysql_fetch_lengths(result);
        Order order{to_integer<std::uint32_t>(row[0], len[0]), to_string(row[1], len[1]),
                    std::nullopt};
        if (row[2] != nullptr) {
            order.note.emplace(row[2], len[2]);
        }
        rows.push_back(std::move(order));
    }
    return rows;
}

}  // namespace mb
