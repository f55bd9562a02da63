#include "common/render.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace mb {
namespace {

std::vector<Product> sample_products() {
    return {{1, "Bolts <M6> & nuts", "55.32"},
            {2, "Rope 3/8\" 'marine'", "326.97"},
            {3, "Path C:\\tools\\bin", "340.80"},
            {4, "Teekanne 日本 🍵", "0.99"}};
}

std::vector<Order> sample_orders() {
    return {{1, "2010-02-09", std::nullopt},
            {2, "2014-07-23", "<script>alert(\"x\")</script> <b>bold</b>"},
            {3, "2012-04-12", std::string("Zoë Müller-Łukasiewicz")}};
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

TEST(HtmlPage, RowsAreEscapedAndNullIsConsistent) {
    const std::string page = render_html_page(sample_products(), sample_orders());
    EXPECT_NE(page.find("<td>Bolts &lt;M6&gt; &amp; nuts</td>"), std::string::npos);
    EXPECT_NE(page.find("<td>Rope 3/8&quot; &#39;marine&#39;</td>"), std::string::npos);
    EXPECT_NE(page.find("<td>Path C:\\tools\\bin</td>"), std::string::npos);
    EXPECT_NE(page.find("<td>Teekanne 日本 🍵</td>"), std::string::npos);
    EXPECT_NE(page.find("<td>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &lt;b&gt;bold&lt;/b&gt;</td>"),
              std::string::npos);
    EXPECT_EQ(page.find("<script>"), std::string::npos);
    EXPECT_EQ(page.find("<b>"), std::string::npos);
    EXPECT_NE(page.find("<td>Zoë Müller-Łukasiewicz</td>"), std::string::npos);
    // NULL is always an empty cell.
    EXPECT_NE(page.find("<tr><td>1</td><td>2010-02-09</td><td></td></tr>"), std::string::npos);
}

TEST(HtmlPage, TwoTablesWithHeaderAndBodyRows) {
    const std::string page = render_html_page(sample_products(), sample_orders());
    std::size_t tables = 0;
    for (auto at = page.find("<table>"); at != std::string::npos; at = page.find("<table>", at + 1)) {
        ++tables;
    }
    EXPECT_EQ(tables, 2u);
    std::size_t open = 0, close = 0;
    for (auto at = page.find("<tr>"); at != std::string::npos; at = page.find("<tr>", at + 1)) ++open;
    for (auto at = page.find("</tr>"); at != std::string::npos; at = page.find("</tr>", at + 1)) ++close;
    EXPECT_EQ(open, 2u + 4u + 3u);
    EXPECT_EQ(open, close);
}

TEST(Json, ParsesBackWithEveryField) {
    const auto orders = sample_orders();
    const auto parsed = nlohmann::json::parse(render_orders_json(orders));
    ASSERT_TRUE(parsed.is_array());
    ASSERT_EQ(parsed.size(), orders.size());
    for (std::size_t i = 0; i < orders.size(); ++i) {
        EXPECT_EQ(parsed[i]["id"], orders[i].id);
        EXPECT_EQ(parsed[i]["placed"], orders[i].placed);
        EXPECT_EQ(parsed[i].size(), 3u);
    }
    EXPECT_TRUE(parsed[0]["note"].is_null());
    EXPECT_EQ(parsed[1]["note"], "<script>alert(\"x\")</script> <b>bold</b>");
    EXPECT_EQ(parsed[2]["note"], "Zoë Müller-Łukasiewicz");
}

TEST(Json, InvalidUtf8IsReplacedNotThrown) {
    std::vector<Order> orders{{1, "2010-01-01", std::string("bad \xff byte")}};
    const auto parsed = nlohmann::json::parse(render_orders_json(orders));
    EXPECT_EQ(parsed[0]["note"], "bad \xEF\xBF\xBD byte");
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
