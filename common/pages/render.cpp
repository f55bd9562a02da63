#include "common/pages/render.hpp"

#include <array>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace mb {
namespace {

// What one byte of text becomes: size 0 when it is copied as it is. 8 bytes in all, so copying
// a replacement is one fixed-size move (writers leave kSlack bytes of room for that).
struct Replacement {
    char text[7] = {};
    unsigned char size = 0;
};
using ReplacementTable = std::array<Replacement, 256>;

constexpr Replacement replacement(std::string_view text) {
    Replacement r;
    for (std::size_t i = 0; i < text.size(); ++i) {
        r.text[i] = text[i];
    }
    r.size = static_cast<unsigned char>(text.size());
    return r;
}

constexpr ReplacementTable make_html_escapes() {
    ReplacementTable table{};
    table['&'] = replacement("&amp;");
    table['<'] = replacement("&lt;");
    table['>'] = replacement("&gt;");
    table['"'] = replacement("&quot;");
    table['\''] = replacement("&#39;");
    return table;
}

// The quote, the backslash and control characters, as JSON (and nlohmann::json) writes them.
// Bytes >= 0x80 are UTF-8, checked on their own.
constexpr ReplacementTable make_json_escapes() {
    ReplacementTable table{};
    constexpr char hex[] = "0123456789abcdef";
    for (int c = 0; c < 0x20; ++c) {
        const char text[] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        table[c] = replacement(std::string_view(text, sizeof text));
    }
    table['\b'] = replacement("\\b");
    table['\t'] = replacement("\\t");
    table['\n'] = replacement("\\n");
    table['\f'] = replacement("\\f");
    table['\r'] = replacement("\\r");
    table['"'] = replacement("\\\"");
    table['\\'] = replacement("\\\\");
    return table;
}

constexpr ReplacementTable kHtmlEscapes = make_html_escapes();
constexpr ReplacementTable kJsonEscapes = make_json_escapes();
// No byte of text becomes more than this many (&quot;, \u001f; U+FFFD is 3 for at least 1).
constexpr std::size_t kMaxExpansion = 6;
// Room beyond the worst case: a replacement is copied as 8 bytes.
constexpr std::size_t kSlack = sizeof(Replacement);
constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD

std::size_t text_bytes(const TextRow& row, unsigned columns) {
    std::size_t bytes = 0;
    for (unsigned column = 0; column < columns; ++column) {
        bytes += row.lengths[column];
    }
    return bytes;
}

void put_replacement(char*& at, const Replacement& r) {
    std::memcpy(at, &r, sizeof r);
    at += r.size;
}

#if defined(__SSE2__)
// Bit i of the mask is set when byte i of the 16 in chunk needs escaping.
struct HtmlSpecials {
    static int mask(__m128i chunk) {
        const auto is = [&chunk](char c) { return _mm_cmpeq_epi8(chunk, _mm_set1_epi8(c)); };
        return _mm_movemask_epi8(
            _mm_or_si128(_mm_or_si128(is('&'), is('<')),
                         _mm_or_si128(_mm_or_si128(is('>'), is('"')), is('\''))));
    }
};

struct JsonSpecials {
    static int mask(__m128i chunk) {
        // As signed bytes, control characters and every byte >= 0x80 are below 0x20.
        return _mm_movemask_epi8(
            _mm_or_si128(_mm_cmplt_epi8(chunk, _mm_set1_epi8(0x20)),
                         _mm_or_si128(_mm_cmpeq_epi8(chunk, _mm_set1_epi8('"')),
                                      _mm_cmpeq_epi8(chunk, _mm_set1_epi8('\\')))));
    }
};

// Copies the bytes before the next special one, 16 at a time while at least 16 are left: most
// text has nothing to escape. The byte-at-a-time loops of the callers do the rest.
template <class Specials>
void copy_plain(const char*& p, const char* end, char*& at) {
    while (end - p >= 16) {
        const __m128i chunk = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        // The caller's room is kMaxExpansion per byte left, at least 96 bytes here.
        _mm_storeu_si128(reinterpret_cast<__m128i*>(at), chunk);
        const int specials = Specials::mask(chunk);
        if (specials != 0) {
            const int plain = __builtin_ctz(specials);
            p += plain;
            at += plain;
            return;
        }
        p += 16;
        at += 16;
    }
}
#else
// Without SSE2 the byte-at-a-time loops of the callers do all the work.
struct HtmlSpecials {};
struct JsonSpecials {};
template <class Specials>
void copy_plain(const char*&, const char*, char*&) {}
#endif

// The UTF-8 sequence starting at p (a byte >= 0x80): its length when it is well-formed (Unicode
// table 3-7); otherwise minus the length of its maximal ill-formed prefix, at least 1.
int utf8_sequence(const unsigned char* p, const unsigned char* end) {
    const unsigned lead = p[0];
    int length = 0;
    unsigned second_low = 0x80;
    unsigned second_high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        second_low = lead == 0xE0 ? 0xA0 : 0x80;   // no overlong forms
        second_high = lead == 0xED ? 0x9F : 0xBF;  // no surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        second_low = lead == 0xF0 ? 0x90 : 0x80;   // no overlong forms
        second_high = lead == 0xF4 ? 0x8F : 0xBF;  // nothing past U+10FFFF
    } else {
        return -1;
    }
    for (int i = 1; i < length; ++i) {
        if (p + i == end) {
            return -i;
        }
        const unsigned byte = p[i];
        if (byte < (i == 1 ? second_low : 0x80) || byte > (i == 1 ? second_high : 0xBF)) {
            return -i;
        }
    }
    return length;
}

// Copies text with each byte replaced as table says; with CheckUtf8, bytes >= 0x80 are checked as
// UTF-8 and each maximal ill-formed subsequence becomes one U+FFFD (as nlohmann::json's replace
// handler does). Needs room for kMaxExpansion bytes per byte of text, plus kSlack.
template <class Specials, bool CheckUtf8>
void put_escaped(TextBuffer& out, std::string_view text, const ReplacementTable& table) {
    const char* p = text.data();
    const char* const end = p + text.size();
    char*& at = out.cursor();
    while (p != end) {
        copy_plain<Specials>(p, end, at);
        if (p == end) {
            break;
        }
        const auto byte = static_cast<unsigned char>(*p);
        if (CheckUtf8 && byte >= 0x80) {
            const int length = utf8_sequence(reinterpret_cast<const unsigned char*>(p),
                                             reinterpret_cast<const unsigned char*>(end));
            if (length > 0) {
                std::memcpy(at, p, length);
                at += length;
                p += length;
            } else {
                std::memcpy(at, kReplacementCharacter.data(), kReplacementCharacter.size());
                at += kReplacementCharacter.size();
                p -= length;
            }
            continue;
        }
        const Replacement& r = table[byte];
        if (r.size == 0) {
            *at++ = *p;
        } else {
            put_replacement(at, r);
        }
        ++p;
    }
}

void put_html_escaped(TextBuffer& out, std::string_view text) {
    put_escaped<HtmlSpecials, false>(out, text, kHtmlEscapes);
}

// A JSON string, quoted. Needs room for 2 + kMaxExpansion bytes per byte of text, plus kSlack.
void put_json_string(TextBuffer& out, std::string_view text) {
    out.put('"');
    put_escaped<JsonSpecials, true>(out, text, kJsonEscapes);
    out.put('"');
}

constexpr std::string_view kPageHead =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Sample database</title></head>"
    "<body>\n<h1>Products</h1>\n<table>\n<thead><tr><th>id</th><th>name</th><th>price</th></tr>"
    "</thead>\n<tbody>\n";
constexpr std::string_view kPageMiddle =
    "</tbody>\n</table>\n<h1>Orders</h1>\n<table>\n<thead><tr><th>id</th><th>placed</th>"
    "<th>note</th></tr></thead>\n<tbody>\n";
constexpr std::string_view kPageTail = "</tbody>\n</table>\n</body></html>\n";
constexpr std::string_view kRowOpen = "<tr><td>";
constexpr std::string_view kCellBreak = "</td><td>";
constexpr std::string_view kRowClose = "</td></tr>\n";
constexpr std::size_t kRowMarkup = kRowOpen.size() + 2 * kCellBreak.size() + kRowClose.size();
// A typical row of either table, markup included, for sizing the page up front.
constexpr std::size_t kHtmlRowEstimate = 64;
constexpr std::size_t kJsonRowEstimate = 56;
// The keys and punctuation of one object, and two quoted strings or nulls.
constexpr std::size_t kJsonRowMarkup =
    std::string_view(",{\"id\":,\"note\":,\"placed\":}").size() + 8;

// A cell of a column that needs no escaping is copied as it is.
void put_html_cell(TextBuffer& out, std::string_view text, bool plain) {
    if (!plain) {
        put_html_escaped(out, text);
    } else if (!text.empty()) {
        out.put(text);
    }
}

// <tr><td>id</td><td>...</td><td>...</td></tr>: both tables are three columns. NULL: empty.
void put_html_rows(TextBuffer& out, RowSource& rows) {
    const bool plain[] = {rows.plain(0), rows.plain(1), rows.plain(2)};
    TextRow row;
    while (rows.next(row)) {
        out.make_room(kRowMarkup + kMaxExpansion * text_bytes(row, 3) + kSlack);
        out.put(kRowOpen);
        put_html_cell(out, row.text(0), plain[0]);
        out.put(kCellBreak);
        put_html_cell(out, row.text(1), plain[1]);
        out.put(kCellBreak);
        put_html_cell(out, row.text(2), plain[2]);
        out.put(kRowClose);
    }
}

}  // namespace

std::string html_escape(std::string_view text) {
    TextBuffer out(kMaxExpansion * text.size() + kSlack);
    put_html_escaped(out, text);
    return std::string(out.view());
}

TextBuffer render_html_page(RowSource& products, RowSource& orders) {
    TextBuffer out(kPageHead.size() + kPageMiddle.size() + kPageTail.size() +
                   kHtmlRowEstimate * (products.size() + orders.size()));
    out.put(kPageHead);
    put_html_rows(out, products);
    out.make_room(kPageMiddle.size());
    out.put(kPageMiddle);
    put_html_rows(out, orders);
    out.make_room(kPageTail.size());
    out.put(kPageTail);
    return out;
}

TextBuffer render_orders_json(RowSource& orders) {
    TextBuffer out(2 + kJsonRowEstimate * orders.size());
    out.put('[');
    const bool plain_note = orders.plain(2);
    const bool plain_placed = orders.plain(1);
    const auto put_string_or_null = [&out](const TextRow& row, unsigned column, bool plain) {
        if (row.is_null(column)) {
            out.put("null");
        } else if (plain) {
            out.put('"');
            out.put(row.text(column));
            out.put('"');
        } else {
            put_json_string(out, row.text(column));
        }
    };
    TextRow row;
    for (bool first = true; orders.next(row); first = false) {
        out.make_room(kJsonRowMarkup + kMaxExpansion * text_bytes(row, 3) + kSlack);
        if (!first) {
            out.put(',');
        }
        // The id column is an integer that is never NULL (check_workload_result): its text is
        // the JSON number.
        out.put("{\"id\":");
        out.put(row.text(0));
        out.put(",\"note\":");
        put_string_or_null(row, 2, plain_note);
        out.put(",\"placed\":");
        put_string_or_null(row, 1, plain_placed);
        out.put('}');
    }
    out.make_room(1);
    out.put(']');
    return out;
}

std::string render_index_page(std::string_view server_name, std::string_view model_description) {
    std::string out =
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>modelbench</title></head>"
        "<body>\n<h1>modelbench</h1>\n<p>";
    // The one line that names the server: both servers' pages are identical except for it.
    out += html_escape(server_name);
    out += ", model ";
    out += html_escape(model_description);
    out +=
        "</p>\n<ul>\n"
        "<li><a href=\"/html\">/html</a>: both tables, two queries, rendered as HTML "
        "(?delay_ms= adds SELECT SLEEP)</li>\n"
        "<li><a href=\"/json\">/json</a>: the orders table as JSON (?delay_ms=)</li>\n"
        "<li><a href=\"/hello\">/hello</a>: Hello World! 10</li>\n"
        "<li><a href=\"/factorial\">/factorial</a>: n! for a random n in 10..40 "
        "(?n=0..20000)</li>\n"
        "<li><a href=\"/tasks\">/tasks</a>: the deferred-task demo (?delay_ms=, default "
        "2000)</li>\n"
        "<li><a href=\"/status\">/status</a>: counters as JSON</li>\n"
        "</ul>\n</body></html>\n";
    return out;
}

}  // namespace mb
