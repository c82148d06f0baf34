#!/usr/bin/env bash
# Runs `xpuperf top` in a real 80x24 terminal (tmux), checks the screen, quits with q, and checks the
# too-small-terminal error. Usage: top_tmux_test.sh PATH_TO_XPUPERF
set -euo pipefail
xpuperf=${1:?usage: top_tmux_test.sh XPUPERF}
command -v tmux >/dev/null || { echo "SKIP: tmux not installed"; exit 77; }
session="xpuperf-top-test-$$"
socket="xpuperf-test-$$"
out=$(mktemp -d)
cleanup() { tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$out"; }
trap cleanup EXIT

wait_for() {  # wait_for SECONDS CONDITION...
  local deadline=$((SECONDS + $1)); shift
  until "$@"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.2
  done
}
screen_has() { tmux -L "$socket" capture-pane -p -t "$session" | grep -q "$1"; }
exited() { [ -f "$out/rc" ]; }

# 80x24: the screen shows the title, the device block and the process header; q quits with 0.
tmux -L "$socket" new-session -d -s "$session" -x 80 -y 24 \
  "env TERM=xterm-256color LANG=C.UTF-8 $xpuperf top --rate 0.5; echo \$? > $out/rc; sleep 30"
wait_for 10 screen_has "PID" || { echo "FAIL: process table never appeared"; tmux -L "$socket" capture-pane -p -t "$session"; exit 1; }
screen_has "xpuperf top" || { echo "FAIL: no title"; exit 1; }
screen_has "Duty" || { echo "FAIL: no duty-cycle meter"; exit 1; }
screen_has "cpu0" || { echo "FAIL: no cpu0 device"; exit 1; }
tmux -L "$socket" capture-pane -p -t "$session" > "$out/screen.txt"
tmux -L "$socket" send-keys -t "$session" q
wait_for 5 exited || { echo "FAIL: top did not quit on q"; exit 1; }
[ "$(cat "$out/rc")" = 0 ] || { echo "FAIL: exit code $(cat "$out/rc") after q"; exit 1; }
echo "80x24 screen:"; cat "$out/screen.txt"
tmux -L "$socket" kill-session -t "$session"

# 40x10: a one-line error and exit code 1.
rm -f "$out/rc"
tmux -L "$socket" new-session -d -s "$session" -x 40 -y 10 \
  "env TERM=xterm-256color $xpuperf top 2> $out/err; echo \$? > $out/rc; sleep 30"
wait_for 10 exited || { echo "FAIL: top in a 40x10 terminal did not exit"; exit 1; }
[ "$(cat "$out/rc")" = 1 ] || { echo "FAIL: exit code $(cat "$out/rc") for a small terminal"; exit 1; }
grep -q "needs at least 60x16" "$out/err" || { echo "FAIL: no size message"; cat "$out/err"; exit 1; }
[ "$(wc -l < "$out/err")" = 1 ] || { echo "FAIL: error is not one line"; cat "$out/err"; exit 1; }
tmux -L "$socket" kill-session -t "$session"

# TERM=dumb cannot address the cursor: plain tables (with a note on stderr) instead of one line.
# Standard output stays on the terminal (redirected, top draws plain tables anyway); the pane's
# history holds what was drawn.
rm -f "$out/rc"
tmux -L "$socket" new-session -d -s "$session" -x 80 -y 24 \
  "env TERM=dumb $xpuperf top --count 2 --rate 0.2 --processes 3 2> $out/err; echo \$? > $out/rc; sleep 30"
wait_for 10 exited || { echo "FAIL: top under TERM=dumb did not exit"; exit 1; }
[ "$(cat "$out/rc")" = 0 ] || { echo "FAIL: exit code $(cat "$out/rc") under TERM=dumb"; cat "$out/err"; exit 1; }
grep -q "TERM=dumb" "$out/err" || { echo "FAIL: no note about TERM=dumb"; cat "$out/err"; exit 1; }
tmux -L "$socket" capture-pane -p -S -200 -t "$session" > "$out/plain"
[ "$(grep -c "PID" "$out/plain")" -ge 2 ] || { echo "FAIL: not two plain tables"; cat "$out/plain"; exit 1; }
echo "PASS"
