#include "common/pages/render.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace mb {
namespace {

using Cells = std::vector<std::optional<std::string>>;

// Rows in memory, handed out as the client library hands out a stored result's rows.
class MemoryRows : public RowSource {
  public:
    explicit MemoryRows(std::vector<Cells> rows) : rows_(std::move(rows)) {
        for (const Cells& row : rows_) {
            auto& pointers = pointers_.emplace_back();
            auto& lengths = lengths_.emplace_back();
            for (const auto& cell : row) {
                pointers.push_back(cell ? cell->c_str() : nullptr);
                lengths.push_back(cell ? cell->size() : 0);
            }
        }
    }

    bool next(TextRow& row) override {
        if (next_ == rows_.size()) {
            return false;
        }
        row.cells = pointers_[next_].data();
        row.lengths = lengths_[next_].data();
        ++next_;
        return true;
    }
    std::size_t size() const override { return rows_.size(); }
    bool plain(unsigned) const override { return false; }

  private:
    std::vector<Cells> rows_;
    std::vector<std::vector<const char*>> pointers_;
    std::vector<std::vector<unsigned long>> lengths_;
    std::size_t next_ = 0;
};

MemoryRows sample_products() {
    return MemoryRows({{"1", "Bolts <M6> & nuts", "55.32"},
                       {"2", "Rope 3/8\" 'marine'", "326.97"},
                       {"3", "Path C:\\tools\\bin", "340.80"},
                       {"4", "Teekanne 日本 🍵", "0.99"}});
}

MemoryRows sample_orders() {
    return MemoryRows({{"1", "2010-02-09", std::nullopt},
                       {"2", "2014-07-23", "<script>alert(\"x\")</script> <b>bold</b>"},
                       {"3", "2012-04-12", "Zoë Müller-Łukasiewicz"}});
}

std::string render_sample_page() {
    MemoryRows products = sample_products();
    MemoryRows orders = sample_orders();
    return std::string(render_html_page(products, orders).view());
}

// The orders as nlohmann::json writes them, the reference for render_orders_json().
std::string json_reference(const std::vector<Cells>& orders) {
    nlohmann::json array = nlohmann::json::array();
    for (const Cells& row : orders) {
        array.push_back({{"id", std::stoul(*row[0])},
                         {"placed", *row[1]},
                         {"note", row[2] ? nlohmann::json(*row[2]) : nlohmann::json(nullptr)}});
    }
    return array.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string render_json(const std::vector<Cells>& orders) {
    MemoryRows rows(orders);
    return std::string(render_orders_json(rows).view());
}

TEST(HtmlEscape, EverySpecialCharacter) {
    EXPECT_EQ(html_escape("&"), "&amp;");
    EXPECT_EQ(html_escape("<"), "&lt;");
    EXPECT_EQ(html_escape(">"), "&gt;");
    EXPECT_EQ(html_escape("\""), "&quot;");
    EXPECT_EQ(html_escape("'"), "&#39;");
    EXPECT_EQ(html_escape("a<b>&\"c'd"), "a&lt;b&gt;&amp;&quot;c&#39;d");
    EXPECT_EQ(html_escape("back\\slash"), "back\\slash");  // no special meaning in HTML text
    EXPECT_EQ(html_escape(""), "");
}

TEST(HtmlEscape, Utf8PassesThroughIntact) {
    const std::string text = "Crème brûlée 日本 🍵 Łukasiewicz";
    EXPECT_EQ(html_escape(text), text);
}

// Long text goes 16 bytes at a time: every special byte at every position of a block, next to
// another, at either end, and only specials, gives what a byte-by-byte escape gives.
TEST(HtmlEscape, LongTextMatchesByteByByteEscaping) {
    const auto reference = [](const std::string& text) {
        std::string out;
        for (const char c : text) {
            switch (c) {
                case '&':
                    out += "&amp;";
                    break;
                case '<':
                    out += "&lt;";
                    break;
                case '>':
                    out += "&gt;";
                    break;
                case '"':
                    out += "&quot;";
                    break;
                case '\'':
                    out += "&#39;";
                    break;
                default:
                    out += c;
            }
        }
        return out;
    };
    const std::string plain = "abcdefghijklmnopqrstuvwxyz0123456789ÄÖÜ日本";
    for (const char special : std::string("&<>\"'")) {
        for (std::size_t at = 0; at <= plain.size(); ++at) {
            std::string text = plain;
            text.insert(at, 1, special);
            EXPECT_EQ(html_escape(text), reference(text)) << text;
            text.insert(at, 1, special);
            EXPECT_EQ(html_escape(text), reference(text)) << text;
        }
    }
    const std::string all(100, '"');
    EXPECT_EQ(html_escape(all), reference(all));
}

TEST(HtmlPage, RowsAreEscapedAndNullIsConsistent) {
    const std::string page = render_sample_page();
    EXPECT_NE(page.find("<td>Bolts &lt;M6&gt; &amp; nuts</td>"), std::string::npos);
    EXPECT_NE(page.find("<td>Rope 3/8&quot; &#39;marine&#39;</td>"), std::string::npos);
    EXPECT_NE(page.find("<td>Path C:\\tools\\bin</td>"), std::string::npos);
    EXPECT_NE(page.find("<td>Teekanne 日本 🍵</td>"), std::string::npos);
    EXPECT_NE(
        page.find(
            "<td>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &lt;b&gt;bold&lt;/b&gt;</td>"),
        std::string::npos);
    EXPECT_EQ(page.find("<script>"), std::string::npos);
    EXPECT_EQ(page.find("<b>"), std::string::npos);
    EXPECT_NE(page.find("<td>Zoë Müller-Łukasiewicz</td>"), std::string::npos);
    // NULL is always an empty cell.
    EXPECT_NE(page.find("<tr><td>1</td><td>2010-02-09</td><td></td></tr>"), std::string::npos);
}

TEST(HtmlPage, TwoTablesWithHeaderAndBodyRows) {
    const std::string page = render_sample_page();
    std::size_t tables = 0;
    for (auto at = page.find("<table>"); at != std::string::npos;
         at = page.find("<table>", at + 1)) {
        ++tables;
    }
    EXPECT_EQ(tables, 2u);
    std::size_t open = 0, close = 0;
    for (auto at = page.find("<tr>"); at != std::string::npos; at = page.find("<tr>", at + 1))
        ++open;
    for (auto at = page.find("</tr>"); at != std::string::npos; at = page.find("</tr>", at + 1))
        ++close;
    EXPECT_EQ(open, 2u + 4u + 3u);
    EXPECT_EQ(open, close);
}

// The page is sized from the row count up front; rows much larger than that estimate still fit.
TEST(HtmlPage, RowsLargerThanTheEstimateGrowThePage) {
    MemoryRows products({{"1", std::string(5000, '<'), "1.00"}});
    MemoryRows orders({{"1", "2010-01-01", std::string(3000, 'x')}});
    const std::string page(render_html_page(products, orders).view());
    EXPECT_NE(page.find("<td>" + std::string(3000, 'x') + "</td>"), std::string::npos);
    std::string escaped;
    for (int i = 0; i < 5000; ++i) {
        escaped += "&lt;";
    }
    EXPECT_NE(page.find("<td>" + escaped + "</td>"), std::string::npos);
    EXPECT_TRUE(page.ends_with("</body></html>\n"));
}

TEST(Json, ParsesBackWithEveryField) {
    MemoryRows orders = sample_orders();
    const auto parsed = nlohmann::json::parse(render_orders_json(orders).view());
    ASSERT_TRUE(parsed.is_array());
    ASSERT_EQ(parsed.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(parsed[i]["id"], i + 1);
        EXPECT_EQ(parsed[i].size(), 3u);
    }
    EXPECT_EQ(parsed[1]["placed"], "2014-07-23");
    EXPECT_TRUE(parsed[0]["note"].is_null());
    EXPECT_EQ(parsed[1]["note"], "<script>alert(\"x\")</script> <b>bold</b>");
    EXPECT_EQ(parsed[2]["note"], "Zoë Müller-Łukasiewicz");
}

TEST(Json, InvalidUtf8IsReplacedNotThrown) {
    const auto parsed = nlohmann::json::parse(render_json({{"1", "2010-01-01", "bad \xff byte"}}));
    EXPECT_EQ(parsed[0]["note"], "bad \xEF\xBF\xBD byte");
}

// The same bytes as nlohmann::json's dump, which wrote /json before: escapes, control
// characters, and each kind of ill-formed UTF-8 (overlong, surrogate, past U+10FFFF, truncated,
// stray continuation bytes), short and long enough for the 16-byte scan.
TEST(Json, SameBytesAsNlohmannJson) {
    const std::vector<std::string> texts = {
        "",
        "plain",
        "quote \" backslash \\ slash /",
        std::string("controls \x01\x08\t\n\x0b\x0c\r\x1f\x7f end"),
        std::string("nul \0 inside", 13),
        "UTF-8 Zoë 日本 🍵",
        "overlong \xc0\xaf and \xe0\x80\xaf",
        "surrogate \xed\xa0\x80 here",
        "beyond \xf4\x90\x80\x80 max",
        "truncated \xe6\x97",
        "truncated mid \xf0\x9f\x8d x",
        "stray \x80\xbf continuation",
        "lead then ascii \xc3"
        "A",
        "\xff\xfe\xfd",
        std::string(40, 'a') + "\"\\\x01" + std::string(40, 'b') + "\xe6\x97\xa5\xff",
    };
    std::vector<Cells> orders;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        orders.push_back({std::to_string(i + 1), texts[i], texts[texts.size() - 1 - i]});
    }
    orders.push_back({"99", "2010-01-01", std::nullopt});
    EXPECT_EQ(render_json(orders), json_reference(orders));
    EXPECT_EQ(render_json({}), "[]");
}

TEST(Hello, ExactBody) {
    EXPECT_EQ(kHelloBody, "Hello World! 10\n");
    EXPECT_EQ(kHelloBody.size(), 16u);
}

TEST(IndexPage, NamesEveryEndpointAndTheModel) {
    const std::string page = render_index_page("blocking-server", "thread per <connection>");
    for (const char* path : {"/html", "/json", "/hello", "/factorial", "/tasks", "/status"}) {
        EXPECT_NE(page.find(std::string("href=\"") + path + "\""), std::string::npos) << path;
    }
    EXPECT_NE(page.find("thread per &lt;connection&gt;"), std::string::npos);
}

TEST(IndexPage, TwoServersDifferInTheModelLineOnly) {
    const std::string blocking = render_index_page("blocking-server", "blocking: threads");
    const std::string async = render_index_page("async-server", "async: an event loop");
    const auto lines = [](const std::string& page) {
        std::vector<std::string> out;
        std::istringstream in(page);
        for (std::string line; std::getline(in, line);) {
            out.push_back(line);
        }
        return out;
    };
    const auto a = lines(blocking);
    const auto b = lines(async);
    ASSERT_EQ(a.size(), b.size());
    int differing = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] != b[i]) {
            ++differing;
            EXPECT_NE(a[i].find("blocking-server"), std::string::npos);
            EXPECT_NE(b[i].find("async-server"), std::string::npos);
        }
    }
    EXPECT_EQ(differing, 1);
}

}  // namespace
}  // namespace mb
