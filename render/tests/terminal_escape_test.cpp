// Control sequences from files and processes never reach the terminal (terminal_escape.h).
#include "xpuperf/render/terminal_escape.h"

#include <gtest/gtest.h>

#include <sstream>

namespace xpuperf::render {
namespace {

TEST(ControlEscapingBuffer, EscapesAcrossWritesAndKeepsText) {
  std::ostringstream sink;
  {
    ControlEscapingBuffer buffer(sink.rdbuf());
    std::ostream out(&buffer);
    out << "a\tb\nc\x1b[2J";
    out << "\xc2";  // a C1 lead at the end of one write ...
    out << "\x9b"
        << "x"
        << "\xc2\xb0"
           "C"
        << '\r' << "\xc2";  // ... its control in the next
    out.flush();
  }
  EXPECT_EQ(sink.str(),
            "a\tb\nc\\x1b[2J\\u009bx\xc2\xb0"
            "C\\x0d\xc2");
}

}  // namespace
}  // namespace xpuperf::render
