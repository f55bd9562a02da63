// Text written through a pointer into memory allocated up front and left uninitialized, where a
// std::string's resize would zero it first: what the page renderers write into and a response
// sends. Writers make room for what they are about to write; the writes themselves never check.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace mb {

class TextBuffer {
  public:
    TextBuffer() = default;
    explicit TextBuffer(std::size_t capacity);
    TextBuffer(TextBuffer&& other) noexcept;
    TextBuffer& operator=(TextBuffer&& other) noexcept;

    // At least bytes of room after what was written, growing (and copying) when less is left.
    void make_room(std::size_t bytes);
    void put(std::string_view text) {
        std::memcpy(at_, text.data(), text.size());
        at_ += text.size();
    }
    void put(char c) { *at_++ = c; }
    // Where the next byte goes; a writer that advances it must have made room first.
    char*& cursor() { return at_; }

    std::string_view view() const { return {bytes_.get(), size()}; }
    std::size_t size() const { return static_cast<std::size_t>(at_ - bytes_.get()); }

  private:
    std::unique_ptr<char[]> bytes_;
    char* at_ = nullptr;
    char* end_ = nullptr;
};

}  // namespace mb
