// The ncurses screen of `xpuperf top`. Layout (top to bottom): title (with the keys), one block per
// device (duty cycle, memory and tensor or SIMD bars, each with its history beside it; power and
// its limit, the clock and its maximum, the performance state, what holds the clocks down,
// temperature, queue; a per-core grid; the processes on an accelerator under a header), then the
// host's process list filling the rest. Keys: ? help, s sort, d device, q quit. Fits 80x24; needs
// at least kTopMinColumns x kTopMinRows.
#include <curses.h>
#include <fmt/format.h>
#include <langinfo.h>
#include <term.h>

#include <chrono>
#include <clocale>
#include <cstring>
#include <ctime>
#include <ostream>

#include "top_view.h"
#include "xpuperf/core/cancellation.h"
#include "xpuperf/core/metric_catalog.h"
#include "xpuperf/render/format.h"

namespace xpuperf::telemetry {

namespace {

enum Colors { kColorBar = 1, kColorTitle = 2, kColorDim = 3 };

class Screen {
 public:
  Screen(int rows, int cols, bool utf8) : rows_(rows), cols_(cols), utf8_(utf8) {}

  bool Full() const { return row_ >= rows_; }
  int remaining() const { return rows_ - row_; }

  void Line(const std::string& text, int attributes = 0) {
    if (Full()) return;
    attron(attributes);
    mvaddnstr(row_, 0, text.c_str(), static_cast<int>(ClipBytes(text, static_cast<size_t>(cols_))));
    attroff(attributes);
    ++row_;
  }

  // "  Duty   [|||||     ] ▂▃▅▇▇▆▅▃  45.2%": the bar, its history right beside it, the value.
  void Meter(const std::string& name, double percent, const std::string& value,
             const std::deque<double>* history) {
    if (Full()) return;
    const int bar_width = std::max(10, std::min(30, cols_ / 4));
    const int history_width = std::max(0, std::min(40, cols_ / 4));
    mvaddstr(row_, 2, fmt::format("{:<7}", name).c_str());
    if (std::isnan(percent)) {
      attron(COLOR_PAIR(kColorDim));
      addstr(fmt::format("{:<{}}", "n/a", bar_width + 2).c_str());
      attroff(COLOR_PAIR(kColorDim));
    } else {
      const std::string bar = Bar(percent, static_cast<size_t>(bar_width));
      addch('[');
      attron(COLOR_PAIR(kColorBar) | A_BOLD);
      addstr(bar.substr(1, bar.size() - 2).c_str());
      attroff(COLOR_PAIR(kColorBar) | A_BOLD);
      addch(']');
    }
    addch(' ');
    if (history_width > 0) {
      // The history grows from the bar rightwards (newest last), padded to a fixed width so the
      // values line up.
      const size_t drawn =
          history != nullptr ? std::min(history->size(), static_cast<size_t>(history_width)) : 0;
      std::string line = drawn > 0 ? Sparkline(*history, drawn, utf8_) : std::string();
      line += std::string(static_cast<size_t>(history_width) - drawn, ' ');
      addnstr(line.c_str(), static_cast<int>(ClipBytes(line, static_cast<size_t>(Free()))));
    }
    const std::string text = fmt::format(" {}", value);
    addnstr(text.c_str(), static_cast<int>(ClipBytes(text, static_cast<size_t>(Free()))));
    ++row_;
  }

 private:
  int Free() const {
    int y = 0, x = 0;
    getyx(stdscr, y, x);
    (void)y;
    return cols_ - x;
  }
  // Bytes of the longest prefix of `text` that fits in `width` cells.
  static size_t ClipBytes(const std::string& text, size_t width) {
    size_t cells = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
        if (cells == width) return i;
        ++cells;
      }
    }
    return text.size();
  }

  int rows_, cols_;
  int row_ = 0;
  bool utf8_;
};

std::string Clock() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  char text[16];
  std::strftime(text, sizeof(text), "%H:%M:%S", &tm);
  return text;
}

// What the keys have chosen: the process order, one device or all, the help screen.
struct ViewState {
  ProcessSort sort = ProcessSort::kCpu;
  int device = -1;  // an index into the model's devices; -1 for all
  bool help = false;
};

constexpr const char* kHelp[] = {
    "xpuperf top: keys",
    "",
    "  ?        this help (any key closes it)",
    "  s        sort the processes: CPU, memory, pid",
    "  d        show one device, then the next, then all",
    "  q        quit",
    "",
    "Per device: duty cycle, memory and tensor (GPU/TPU) or SIMD (CPU) utilisation, each bar",
    "with its history beside it; power against its limit, the clock against its maximum, the",
    "performance state and what holds the clocks down (power cap, thermal, ...); the processes",
    "using it (device memory, busiest engine).",
};

std::string DeviceStateLine(const DeviceSummary& d) {
  auto value = [](double v, std::string_view unit) {
    return std::isnan(v) ? std::string("n/a") : render::FormatValue(unit, v);
  };
  std::string line = "  Power " + value(d.power_watts, "watts");
  if (!std::isnan(d.power_limit_watts)) line += " / " + value(d.power_limit_watts, "watts");
  if (d.device.backend != "cpu") {
    line += "   Clock " + value(d.clock_hz, "hertz");
    if (!std::isnan(d.clock_max_hz)) line += " / " + value(d.clock_max_hz, "hertz");
    if (d.performance_state >= 0) line += fmt::format("  P{}", d.performance_state);
    if (!d.held_by.empty()) line += "   Held by: " + d.held_by;
  }
  line += "   Temp " + FormatTemperatures(d.temperatures);
  if (!std::isnan(d.queue)) line += fmt::format("   Queue {:g}", d.queue);
  if (!d.core_states.empty()) line += "   Cores: " + d.core_states;
  return line;
}

void DrawDevice(Screen& screen, const DeviceSummary& d, int cols) {
  screen.Line(fmt::format("{}  {}  {}", render::DeviceColumn(d.device), d.device.model,
                          DeviceIdentity(d.device)),
              A_BOLD);
  screen.Meter("Duty", d.duty_percent,
               std::isnan(d.duty_percent) ? "" : FormatPercent(d.duty_percent), &d.duty_history);
  const double memory_percent =
      d.memory_total_bytes > 0 ? 100 * d.memory_used_bytes / d.memory_total_bytes : kNoValue;
  screen.Meter("Memory", memory_percent,
               std::isnan(memory_percent)
                   ? ""
                   : FormatBytes(d.memory_used_bytes) + "/" + FormatBytes(d.memory_total_bytes),
               &d.memory_history);
  const std::string label(TensorLabel(d.device));
  if (auto why = d.missing.find(std::string(metrics::kTensorCoreUtilization));
      why != d.missing.end()) {
    screen.Line(fmt::format("  {:<7}n/a: {}", label, why->second), COLOR_PAIR(kColorDim));
  } else {
    screen.Meter(label, d.simd_percent,
                 std::isnan(d.simd_percent) ? "" : FormatPercent(d.simd_percent), nullptr);
  }
  screen.Line(DeviceStateLine(d));
  // Per-core grid: cells of "c12 [||||  ]  45%".
  const int cell = 20;
  const int per_line = std::max(1, (cols - 2) / cell);
  std::string line = "  ";
  int in_line = 0;
  for (const auto& [core, duty] : d.core_duty) {
    line += fmt::format("{:<{}}", fmt::format("c{:<3}{} {:3.0f}%", core, Bar(duty, 8), duty), cell);
    if (++in_line == per_line) {
      screen.Line(line);
      line = "  ";
      in_line = 0;
    }
  }
  if (in_line > 0) screen.Line(line);
  // The processes on an accelerator: the device memory each holds, its busiest engine.
  if (d.device.backend == "cpu") return;
  if (d.processes.empty()) {
    screen.Line("  no process on this device", COLOR_PAIR(kColorDim));
    return;
  }
  screen.Line(fmt::format("  {:>8} {:>11} {:>6}  {}", "PID", "DEV MEMORY", "BUSY", "COMMAND"),
              A_UNDERLINE);
  for (const DeviceProcess& p : d.processes) {
    screen.Line(fmt::format("  {:>8} {:>11} {:>6}  {}", p.pid,
                            std::isnan(p.memory_bytes) ? "n/a" : FormatBytes(p.memory_bytes),
                            std::isnan(p.busy_percent) ? "n/a" : FormatPercent(p.busy_percent),
                            p.command.empty() ? "?" : p.command),
                COLOR_PAIR(kColorDim));
  }
}

void Draw(const TopModel& model, const TopOptions& options, const ViewState& view, bool utf8) {
  int rows = 0, cols = 0;
  getmaxyx(stdscr, rows, cols);
  erase();
  if (cols < kTopMinColumns || rows < kTopMinRows) {
    mvaddstr(0, 0,
             fmt::format("terminal too small: {}x{}, needs {}x{}", cols, rows, kTopMinColumns,
                         kTopMinRows)
                 .c_str());
    refresh();
    return;
  }
  Screen screen(rows, cols, utf8);
  const auto& devices = model.devices();
  const std::string shown = view.device < 0 ? "all" : devices[view.device].device.id;
  screen.Line(fmt::format("{:<{}}",
                          fmt::format(" xpuperf top  {}  {}  every {:g}s  sort {}  device {}"
                                      "   ? help  q quit",
                                      model.host(), Clock(), options.rate_seconds,
                                      ProcessSortName(view.sort), shown),
                          cols),
              COLOR_PAIR(kColorTitle) | A_BOLD);
  if (view.help) {
    for (const char* line : kHelp) screen.Line(line);
    refresh();
    return;
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    if (view.device >= 0 && static_cast<size_t>(view.device) != i) continue;
    DrawDevice(screen, devices[i], cols);
  }
  screen.Line("");
  screen.Line(fmt::format("{:>8} {:>7} {:>11}  {}", "PID", "CPU", "MEMORY", "COMMAND"), A_REVERSE);
  const int rows_left = screen.remaining();
  if (rows_left > 0) {
    for (const ProcessUsage& p : model.processes(static_cast<size_t>(rows_left), view.sort)) {
      screen.Line(fmt::format("{:>8} {:>7} {:>11}  {}", p.pid, FormatPercent(p.cpu_percent),
                              FormatBytes(static_cast<double>(p.rss_bytes)), p.command));
    }
  }
  refresh();
}

// Applies a key to the view; false when it asks to quit.
bool HandleKey(int key, ViewState& view, size_t devices) {
  if (view.help && key != ERR && key != KEY_RESIZE) {
    view.help = false;
    return key != 'q' && key != 'Q';
  }
  switch (key) {
    case 'q':
    case 'Q':
      return false;
    case '?':
    case 'h':
      view.help = true;
      break;
    case 's':
      view.sort = view.sort == ProcessSort::kCpu      ? ProcessSort::kMemory
                  : view.sort == ProcessSort::kMemory ? ProcessSort::kPid
                                                      : ProcessSort::kCpu;
      break;
    case 'd':
      view.device = view.device + 1 >= static_cast<int>(devices) ? -1 : view.device + 1;
      break;
    default:
      break;
  }
  return true;
}

}  // namespace

int RunTopTerminal(TopModel& model, const TopOptions& options, std::ostream& err) {
  std::setlocale(LC_ALL, "");
  const bool utf8 = std::strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
  SCREEN* screen = newterm(nullptr, stdout, stdin);
  if (screen == nullptr) return kTopNeedsPlain;
  // A terminal without cursor addressing (TERM=dumb) would show one line: plain tables instead.
  const char* move_cursor = tigetstr(const_cast<char*>("cup"));
  // NOLINTNEXTLINE(performance-no-int-to-ptr): (char*)-1 is tigetstr's documented error value
  if (move_cursor == nullptr || move_cursor == reinterpret_cast<char*>(-1)) {
    endwin();
    delscreen(screen);
    return kTopNeedsPlain;
  }
  int rows = 0, cols = 0;
  getmaxyx(stdscr, rows, cols);
  if (cols < kTopMinColumns || rows < kTopMinRows) {
    endwin();
    delscreen(screen);
    err << "xpuperf top: error: terminal is " << cols << "x" << rows
        << "; xpuperf top needs at least " << kTopMinColumns << "x" << kTopMinRows
        << " (or use --plain)\n";
    return kExitFailure;
  }
  cbreak();
  noecho();
  curs_set(0);
  keypad(stdscr, TRUE);
  timeout(50);  // ms: getch() wakes often enough to notice q and stop requests
  if (has_colors()) {
    start_color();
    use_default_colors();
    init_pair(kColorBar, COLOR_GREEN, -1);
    init_pair(kColorTitle, COLOR_BLACK, COLOR_CYAN);
    init_pair(kColorDim, COLOR_YELLOW, -1);
  }
  int exit_code = kExitOk;
  std::string failure;
  using SteadyClock = std::chrono::steady_clock;
  // The first observation needs a window for rates (duty cycle, power).
  auto next = SteadyClock::now() + std::chrono::milliseconds(300);
  mvaddstr(0, 0, "xpuperf top: sampling...");
  refresh();
  int refreshes = 0;
  bool drawn = false;
  ViewState view;
  while (!CancellationRequested()) {
    if (SteadyClock::now() >= next) {
      if (Status s = model.Refresh(); !s.ok()) {
        failure = s.error().message;
        exit_code = kExitFailure;
        break;
      }
      Draw(model, options, view, utf8);
      drawn = true;
      next += std::chrono::duration_cast<SteadyClock::duration>(
          std::chrono::duration<double>(options.rate_seconds));
      if (options.count && ++refreshes >= *options.count) break;
    }
    const int key = getch();
    if (key == ERR) continue;
    if (!HandleKey(key, view, model.devices().size())) break;
    if (drawn) Draw(model, options, view, utf8);
  }
  endwin();
  delscreen(screen);
  if (!failure.empty()) err << "xpuperf top: error: " << failure << "\n";
  return exit_code;
}

}  // namespace xpuperf::telemetry
