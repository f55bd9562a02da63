// What both servers decide about the exchanges on a connection, whatever their I/O model.
#pragma once

#include <chrono>

namespace mb {

// Every close the server starts (after a response that ends the connection, a refused request,
// shutdown) half-closes first and reads, discarding, what the client still sends, for at most
// this long (Apache's lingering close). Closing a socket with unread input makes the kernel send
// a reset, and a reset destroys whatever the client has not read yet: responses already sent
// would be lost.
inline constexpr std::chrono::seconds kLingerTime{2};

}  // namespace mb
