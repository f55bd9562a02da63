#include "common/text_buffer.hpp"

#include <algorithm>
#include <utility>

namespace mb {

TextBuffer::TextBuffer(std::size_t capacity)
    : bytes_(std::make_unique_for_overwrite<char[]>(capacity)),
      at_(bytes_.get()),
      end_(bytes_.get() + capacity) {}

TextBuffer::TextBuffer(TextBuffer&& other) noexcept
    : bytes_(std::move(other.bytes_)),
      at_(std::exchange(other.at_, nullptr)),
      end_(std::exchange(other.end_, nullptr)) {}

TextBuffer& TextBuffer::operator=(TextBuffer&& other) noexcept {
    bytes_ = std::move(other.bytes_);
    at_ = std::exchange(other.at_, nullptr);
    end_ = std::exchange(other.end_, nullptr);
    return *this;
}

void TextBuffer::make_room(std::size_t bytes) {
    if (static_cast<std::size_t>(end_ - at_) >= bytes) {
        return;
    }
    const std::size_t used = size();
    const std::size_t capacity =
        std::max(2 * static_cast<std::size_t>(end_ - bytes_.get()), used + bytes);
    auto grown = std::make_unique_for_overwrite<char[]>(capacity);
    if (used != 0) {
        std::memcpy(grown.get(), bytes_.get(), used);
    }
    bytes_ = std::move(grown);
    at_ = bytes_.get() + used;
    end_ = bytes_.get() + capacity;
}

}  // namespace mb
