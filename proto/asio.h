#pragma once
// Asio, as the code that also builds for Windows (proto, client, bots) includes it. On Windows, its headers
// bring in windows.h, whose 16-bit era macros `near` and `far` (defined empty) would silently erase
// those words from every declaration that follows, ours included; they are undone here.

#include <asio/io_context.hpp>
#include <asio/ip/address.hpp>
#include <asio/ip/udp.hpp>
#include <asio/post.hpp>
#include <asio/steady_timer.hpp>

#if defined(_WIN32)
#undef near
#undef far
#endif
