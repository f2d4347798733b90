#pragma once
// The little of HTTP/1.1 the metrics port speaks (server/metrics_server.h), as plain functions over
// bytes so that the rules are tested without a socket: a request's head is read whole (request line
// and header fields, through the blank line) into a buffer of kMaxRequestHead bytes; a body is never
// read. Every answer closes the connection, so one request is all a connection ever costs.
//
// The port is reachable by whoever can reach the pod (issue #63): nothing a peer sends makes the
// server hold more than kMaxRequestHead bytes for it, or wait on it longer than the deadlines in
// metrics_server.cpp.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace foothold::server {

/// Bytes of a request's head (request line, fields and the blank line) at most; a longer one is
/// answered 431. Probes and scrapes send a few hundred.
inline constexpr std::size_t kMaxRequestHead = 4096;
/// Bytes of a request body at most: a request that announces more (or a chunked one, whose length
/// is not announced) is answered 413 without a byte of it read. No endpoint takes a body.
inline constexpr std::size_t kMaxRequestBody = 4096;

/// A request head, as parse_request_head() reads it.
struct RequestHead {
  bool valid = false;          ///< a request line "METHOD SP TARGET SP HTTP/1.x" and well-formed fields
  std::string method;          ///< as sent (methods are case-sensitive)
  std::string path;            ///< the target without its query ("/metrics?x" gives "/metrics")
  uint64_t content_length = 0; ///< the Content-Length field (0 when absent)
  bool body_unbounded = false; ///< Transfer-Encoding given, or a Content-Length that is not a number
};

/// The bytes of the head at the start of `bytes`, through its blank line ("\r\n\r\n", or "\n\n"
/// from a lax client); 0 while it has not all arrived.
std::size_t request_head_length(std::string_view bytes);
/// Reads a head that request_head_length() found whole.
RequestHead parse_request_head(std::string_view head);

/// An answer, before it is written out.
struct Reply {
  int status = 200;
  std::string body;
  std::string content_type = "text/plain; charset=utf-8";
};
/// The reply that refuses `head` before any endpoint sees it: 400 (not a request), 405 (a method
/// other than GET and HEAD), 413 (a body over kMaxRequestBody, or of unannounced length); status 0
/// when the request may go on to its endpoint.
Reply refusal(const RequestHead& head);
/// `reply` as the bytes on the wire: status line, Content-Type, Content-Length, Connection: close
/// (and Allow for a 405), then the body unless `head_only` (a HEAD request).
std::string serialize(const Reply& reply, bool head_only);

}  // namespace foothold::server
