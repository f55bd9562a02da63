// Integration: the private MariaDB of scripts/db.sh, queried through the blocking wrapper.
#include "common/command_line.hpp"
#include "common/db/blocking_connection.hpp"
#include "common/db/workload.hpp"
#include "common/pages/render.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <errmsg.h>

#include <optional>
#include <regex>
#include <stdexcept>

namespace mb {
namespace {

DbConfig test_db() {
    // The same defaults and environment fallbacks as the servers.
    CommandLine cl{"database_tests", "", 0};
    const char* argv[] = {"database_tests"};
    cl.parse(1, argv);
    return cl.db;
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

using Row = std::vector<std::optional<std::string>>;

class SampleDatabase : public ::testing::Test {
  protected:
    void SetUp() override { db.connect(); }

    BlockingDbConnection db{test_db()};
    MysqlResult products() { return checked(db.query(kProductsQuery)); }
    MysqlResult orders() { return checked(db.query(kOrdersQuery)); }

    static MysqlResult checked(MysqlResult result) {
        check_workload_result(result.get());
        return result;
    }
    // Every row as ResultRows hands it to the renderers.
    static std::vector<Row> rows(const MysqlResult& result) {
        std::vector<Row> out;
        ResultRows source(result.get());
        EXPECT_EQ(source.size(), mysql_num_rows(result.get()));
        TextRow row;
        while (source.next(row)) {
            Row& cells = out.emplace_back();
            for (unsigned column = 0; column < 3; ++column) {
                cells.push_back(row.is_null(column) ? std::nullopt
                                                    : std::optional(std::string(row.text(column))));
            }
        }
        return out;
    }
};

TEST_F(SampleDatabase, BothTablesHave300Rows) {
    const auto p = rows(products());
    const auto c = rows(orders());
    ASSERT_EQ(p.size(), 300u);
    ASSERT_EQ(c.size(), 300u);
    EXPECT_EQ(p.front()[0], "1");
    EXPECT_EQ(p.back()[0], "300");
    EXPECT_EQ(c.back()[0], "300");
}

TEST_F(SampleDatabase, SpecialCharactersAndUtf8ArriveIntact) {
    const auto p = rows(products());
    const auto o = rows(orders());
    EXPECT_EQ(p[6][1], "Bolts <M6> & nuts");
    EXPECT_EQ(p[41][1], "Rope 3/8\" 'marine'");
    EXPECT_EQ(p[98][1], "Path C:\\tools\\bin");
    EXPECT_EQ(p[209][1], "Teekanne 日本 🍵");
    EXPECT_EQ(o[63][2], "Zoë Müller-Łukasiewicz, café au lait ☕, invoice in €");
    EXPECT_EQ(o[127][2], "<script>alert(\"x\")</script>");
    EXPECT_EQ(o[255][2], "Ship to \\\\fileserver\\dock \"B\"");
    EXPECT_EQ(o[0][1], "2010-01-14");
    EXPECT_FALSE(o[0][2].has_value());
    EXPECT_TRUE(o[24][2].has_value());
}

TEST_F(SampleDatabase, ResultsOfAnotherShapeAreRefused) {
    EXPECT_THROW(check_workload_result(db.query("SELECT id, name FROM products").get()),
                 std::runtime_error);
    EXPECT_THROW(check_workload_result(db.query("SELECT name, id, price FROM products").get()),
                 std::runtime_error);
    EXPECT_THROW(check_workload_result(db.query("SELECT NULL, name, price FROM products").get()),
                 std::runtime_error);
}

TEST_F(SampleDatabase, HtmlPageIsWellFormedEscapedAndSized) {
    const MysqlResult product_result = products();
    const MysqlResult order_result = orders();
    ResultRows product_rows(product_result.get());
    ResultRows order_rows(order_result.get());
    const std::string page(render_html_page(product_rows, order_rows).view());
    EXPECT_EQ(count(page, "<tr>"), count(page, "</tr>"));
    EXPECT_EQ(count(page, "<td>"), count(page, "</td>"));
    EXPECT_EQ(count(page, "<tbody>"), 2u);
    const auto first_body = page.find("<tbody>");
    const auto first_end = page.find("</tbody>", first_body);
    const auto second_body = page.find("<tbody>", first_end);
    const auto second_end = page.find("</tbody>", second_body);
    EXPECT_EQ(count(page.substr(first_body, first_end - first_body), "<tr>"), 300u);
    EXPECT_EQ(count(page.substr(second_body, second_end - second_body), "<tr>"), 300u);
    // Outside of tags no raw < > " ' may remain: strip the known markup and look.
    const std::string text = std::regex_replace(
        page,
        std::regex("</?(html|head|meta|title|body|h1|table|thead|tbody|tr|th|td)[^>]*>|"
                   "<!DOCTYPE html>"),
        "");
    EXPECT_EQ(text.find_first_of("<>\"'"), std::string::npos) << text.substr(0, 200);
    EXPECT_EQ(std::regex_search(text, std::regex("&(?!(amp|lt|gt|quot|#39);)")), false);
    EXPECT_GE(page.size(), 15u * 1024);
    EXPECT_LE(page.size(), 40u * 1024);
}

// ResultRows with every column escaped, as if no column's type ruled out special characters.
class EscapeEveryColumn : public RowSource {
  public:
    explicit EscapeEveryColumn(MYSQL_RES* result) : rows_(result) {}
    bool next(TextRow& row) override { return rows_.next(row); }
    std::size_t size() const override { return rows_.size(); }
    bool plain(unsigned) const override { return false; }

  private:
    ResultRows rows_;
};

// The number and date columns are copied without escaping: escaping them changes nothing.
TEST_F(SampleDatabase, ColumnsCopiedAsTheyAreNeedNoEscaping) {
    const MysqlResult product_result = products();
    const MysqlResult order_result = orders();
    ResultRows product_rows(product_result.get());
    ResultRows order_rows(order_result.get());
    EXPECT_TRUE(product_rows.plain(0) && product_rows.plain(2) && !product_rows.plain(1));
    EXPECT_TRUE(order_rows.plain(0) && order_rows.plain(1) && !order_rows.plain(2));
    const std::string page(render_html_page(product_rows, order_rows).view());
    mysql_data_seek(order_result.get(), 0);
    const std::string json(render_orders_json(order_rows).view());

    mysql_data_seek(product_result.get(), 0);
    mysql_data_seek(order_result.get(), 0);
    EscapeEveryColumn all_products(product_result.get());
    EscapeEveryColumn all_orders(order_result.get());
    EXPECT_EQ(page, render_html_page(all_products, all_orders).view());
    mysql_data_seek(order_result.get(), 0);
    EXPECT_EQ(json, render_orders_json(all_orders).view());
}

TEST_F(SampleDatabase, JsonHas300ObjectsWithTheRightFields) {
    const MysqlResult result = orders();
    ResultRows rows(result.get());
    const auto parsed = nlohmann::json::parse(render_orders_json(rows).view());
    ASSERT_EQ(parsed.size(), 300u);
    for (const auto& row : parsed) {
        ASSERT_EQ(row.size(), 3u);
        ASSERT_TRUE(row["id"].is_number_unsigned());
        ASSERT_TRUE(row["placed"].is_string());
        ASSERT_TRUE(row["note"].is_null() || row["note"].is_string());
    }
    EXPECT_EQ(parsed[127]["note"], "<script>alert(\"x\")</script>");
}

TEST_F(SampleDatabase, SleepQueryWaits) {
    EXPECT_EQ(sleep_query(1250), "SELECT SLEEP(1.250)");
    EXPECT_EQ(sleep_query(5), "SELECT SLEEP(0.005)");
    const auto started = std::chrono::steady_clock::now();
    db.query(sleep_query(200));
    EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(190));
}

TEST(DatabaseErrors, UnreachableDatabaseIsUnavailable) {
    DbConfig config = test_db();
    config.socket.clear();
    config.host = "127.0.0.1";
    config.port = 1;  // nothing listens on port 1
    try {
        BlockingDbConnection db{config};
        db.connect();
        FAIL() << "connected to port 1";
    } catch (const DbError& e) {
        EXPECT_EQ(e.kind, DbError::Kind::unavailable);
    }
}

// What a persistent or pooled connection may do after a failed statement: go on after the
// server's own error answer, be dropped after one of the client library's (2000 and up), whose
// protocol state is unknown.
TEST(DatabaseErrors, AServerErrorLeavesTheConnectionUsableAClientErrorBreaksIt) {
    BlockingDbConnection db{test_db()};
    db.connect();
    try {
        db.query("DELETE FROM products WHERE id = 1");  // the servers' user is read-only
        FAIL() << "the server's user could write";
    } catch (const DbError& e) {
        EXPECT_EQ(e.kind, DbError::Kind::failed);
        EXPECT_FALSE(e.connection_broken);
    }
    EXPECT_EQ(mysql_num_rows(db.query(kProductsQuery).get()), 300u);

    // A real client-side error: a second statement before the first one's result was read.
    init_mysql_library();
    MYSQL* raw = mysql_init(nullptr);
    const DbConfig config = test_db();
    const bool socket = !config.socket.empty();
    ASSERT_NE(
        mysql_real_connect(raw, socket ? "localhost" : config.host.c_str(), config.user.c_str(),
                           config.password.c_str(), config.database.c_str(), config.port,
                           socket ? config.socket.c_str() : nullptr, 0),
        nullptr)
        << mysql_error(raw);
    ASSERT_EQ(mysql_real_query(raw, "SELECT 1", 8), 0);
    ASSERT_NE(mysql_real_query(raw, "SELECT 2", 8), 0);
    const DbError out_of_sync = statement_error(mysql_errno(raw), mysql_error(raw));
    mysql_close(raw);
    EXPECT_EQ(out_of_sync.kind, DbError::Kind::failed);
    EXPECT_TRUE(out_of_sync.connection_broken) << out_of_sync.what();

    const DbError lost = statement_error(CR_SERVER_LOST, "Lost connection");
    EXPECT_EQ(lost.kind, DbError::Kind::unavailable);
    EXPECT_TRUE(lost.connection_broken);
}

TEST(DatabaseErrors, SlowQueryTimesOut) {
    DbConfig config = test_db();
    config.query_timeout = std::chrono::milliseconds(1000);
    BlockingDbConnection db{config};
    db.connect();
    try {
        db.query(sleep_query(3000));
        FAIL() << "a 3 s query passed a 1 s timeout";
    } catch (const DbError& e) {
        EXPECT_EQ(e.kind, DbError::Kind::timeout) << e.what();
    }
}

}  // namespace
}  // namespace mb
