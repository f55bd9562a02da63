// TextBuffer: text written through a pointer into memory allocated up front; growing keeps what
// was written.
#include "common/text_buffer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace mb {
namespace {

TEST(TextBuffer, WritesTextCharactersAndThroughTheCursor) {
    TextBuffer buffer(16);
    buffer.make_room(6);
    buffer.put("abc");
    buffer.put('d');
    char*& cursor = buffer.cursor();
    *cursor++ = 'e';
    *cursor++ = 'f';
    EXPECT_EQ(buffer.view(), "abcdef");
    EXPECT_EQ(buffer.size(), 6u);
}

TEST(TextBuffer, GrowingKeepsWhatWasWritten) {
    TextBuffer buffer(4);
    std::string expected;
    for (int i = 0; i < 1000; ++i) {
        const std::string piece = std::to_string(i) + ",";
        buffer.make_room(piece.size());
        buffer.put(piece);
        expected += piece;
    }
    EXPECT_EQ(buffer.view(), expected);
}

TEST(TextBuffer, MovesItsTextAndLeavesTheSourceEmpty) {
    TextBuffer source(8);
    source.make_room(5);
    source.put("hello");
    TextBuffer moved(std::move(source));
    EXPECT_EQ(moved.view(), "hello");
    TextBuffer assigned;
    assigned = std::move(moved);
    EXPECT_EQ(assigned.view(), "hello");
}

}  // namespace
}  // namespace mb
