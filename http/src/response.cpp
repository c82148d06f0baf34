#include "response.h"

#include <ctime>

namespace xpuperf::http {

namespace {

// CR and LF never reach the wire from a header (response splitting).
std::string HeaderText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) out += (c == '\r' || c == '\n') ? ' ' : c;
  return out;
}

std::string HttpDate() {
  char buffer[64];
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  const size_t n = std::strftime(buffer, sizeof(buffer), "%a, %d %b %Y %H:%M:%S GMT", &utc);
  return std::string(buffer, n);
}

}  // namespace

void Response::SetHeader(std::string name, std::string value) {
  for (Header& h : headers) {
    if (h.name == name) {
      h.value = std::move(value);
      return;
    }
  }
  headers.push_back({std::move(name), std::move(value)});
}

void Response::SetBody(std::string text, std::string content_type) {
  SetSharedBody(std::make_shared<const std::string>(std::move(text)), std::move(content_type));
}

void Response::SetSharedBody(std::shared_ptr<const std::string> text, std::string content_type) {
  body = std::move(text);
  SetHeader("Content-Type", std::move(content_type));
}

std::string ResponseHead(const Response& response, bool keep_alive) {
  std::string head = "HTTP/1.1 " + std::to_string(response.status) + " ";
  head += ReasonPhrase(response.status);
  head += "\r\n";
  for (const Header& h : response.headers) {
    head += HeaderText(h.name) + ": " + HeaderText(h.value) + "\r\n";
  }
  head += "Content-Length: " + std::to_string(response.body ? response.body->size() : 0) + "\r\n";
  head += "Date: " + HttpDate() + "\r\n";
  if (!keep_alive) head += "Connection: close\r\n";
  head += "\r\n";
  return head;
}

std::string ErrorAnswer(int status, const std::string& reason, const std::string& allow) {
  Response response;
  response.status = status;
  if (status == 405 && !allow.empty()) response.SetHeader("Allow", allow);
  response.SetBody(
      std::to_string(status) + " " + std::string(ReasonPhrase(status)) + ": " + reason + "\n",
      "text/plain; charset=utf-8");
  return ResponseHead(response, false) + *response.body;
}

}  // namespace xpuperf::http
