#include "server/http_request.h"

#include <cctype>
#include <charconv>

namespace foothold::server {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// A method is a token of letters (RFC 9110 allows more, but no client of this port sends more).
bool is_method(std::string_view m) {
  if (m.empty() || m.size() > 16) return false;
  for (const char c : m)
    if (c < 'A' || c > 'Z') return false;
  return true;
}

// Splits off the line that starts `rest` (without its "\n" or "\r\n").
std::string_view next_line(std::string_view& rest) {
  const std::size_t end = rest.find('\n');
  std::string_view line = rest.substr(0, end);
  rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// Reads "METHOD SP TARGET SP HTTP/1.x" into `out`; false when the line is anything else.
bool read_request_line(std::string_view line, RequestHead& out) {
  const std::size_t first = line.find(' ');
  const std::size_t second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (second == std::string_view::npos) return false;
  const std::string_view method = line.substr(0, first);
  const std::string_view target = line.substr(first + 1, second - first - 1);
  const std::string_view version = line.substr(second + 1);
  if (!is_method(method) || target.empty() || target.front() != '/') return false;
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return false;
  out.method = method;
  out.path = target.substr(0, target.find('?'));
  return true;
}

// Takes one header field; false when it is not "name: value".
bool read_field(std::string_view line, RequestHead& out) {
  const std::size_t colon = line.find(':');
  if (colon == 0 || colon == std::string_view::npos) return false;
  const std::string_view name = line.substr(0, colon);
  if (name.find_first_of(" \t") != std::string_view::npos) return false;
  const std::string_view value = trim(line.substr(colon + 1));
  if (equals_ignoring_case(name, "Transfer-Encoding")) {
    out.body_unbounded = true;
  } else if (equals_ignoring_case(name, "Content-Length")) {
    uint64_t n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || end != value.data() + value.size())
      out.body_unbounded = true;  // not a number, or past 2^64: no length we could hold it to
    else
      out.content_length = n;
  }
  return true;
}

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    default: return "Unknown";
  }
}

}  // namespace

std::size_t request_head_length(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != '\n') continue;
    if (i + 1 < bytes.size() && bytes[i + 1] == '\n') return i + 2;
    if (i + 2 < bytes.size() && bytes[i + 1] == '\r' && bytes[i + 2] == '\n') return i + 3;
  }
  return 0;
}

RequestHead parse_request_head(std::string_view head) {
  RequestHead out;
  std::string_view rest = head;
  if (!read_request_line(next_line(rest), out)) return out;
  for (std::string_view line = next_line(rest); !line.empty(); line = next_line(rest))
    if (!read_field(line, out)) return out;
  out.valid = true;
  return out;
}

Reply refusal(const RequestHead& head) {
  if (!head.valid) return {400, "bad request\n"};
  // Checked before the body's size: a POST is refused whatever it carries, and none of it is read.
  if (head.method != "GET" && head.method != "HEAD") return {405, "only GET and HEAD\n"};
  if (head.body_unbounded || head.content_length > kMaxRequestBody) return {413, "no endpoint takes a body\n"};
  return {0, {}};
}

std::string serialize(const Reply& reply, bool head_only) {
  std::string out = "HTTP/1.1 " + std::to_string(reply.status) + " " + reason(reply.status) + "\r\n";
  out += "Content-Type: " + reply.content_type + "\r\n";
  out += "Content-Length: " + std::to_string(reply.body.size()) + "\r\n";
  if (reply.status == 405) out += "Allow: GET, HEAD\r\n";
  out += "Connection: close\r\n\r\n";
  if (!head_only) out += reply.body;
  return out;
}

}  // namespace foothold::server
