// The workload both servers run: the sample database's row types, the SQL they send, and the
// decoding of a stored result into rows. No SQL here is ever built from request input.
#pragma once

#include <mysql.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mb {

struct Product {
    std::uint32_t id = 0;
    std::string name;
    std::string price;  // DECIMAL kept as its exact text, as MySQL clients (and Node's mysql) do
};

struct Order {
    std::uint32_t id = 0;
    std::string placed;               // DATE as YYYY-MM-DD
    std::optional<std::string> note;  // nullable TEXT
};

// The two queries of /html (each fetches all 300 rows of one table); /json runs the second.
inline constexpr const char* kProductsQuery = "SELECT id, name, price FROM products ORDER BY id";
inline constexpr const char* kOrdersQuery = "SELECT id, placed, note FROM orders ORDER BY id";

// The largest ?delay_ms= accepted by /html, /json and /tasks.
inline constexpr unsigned kMaxDelayMs = 10000;

// "SELECT SLEEP(1.250)" for delay_ms = 1250: the emulated slow database of ?delay_ms=.
std::string sleep_query(unsigned delay_ms);

// Decode a stored result of kProductsQuery / kOrdersQuery. Throws std::runtime_error when the
// result does not have the expected columns.
std::vector<Product> read_products(MYSQL_RES* result);
std::vector<Order> read_orders(MYSQL_RES* result);

}  // namespace mb
