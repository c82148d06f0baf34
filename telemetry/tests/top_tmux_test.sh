#!/usr/bin/env bash
# Runs `xpuperf top` in real terminals (tmux): 80x24 on this machine, quits with q; with the fake
# NVML's two GPUs at 80x24, 120x40 and 200x60 (headers, power cap and throttle in words, the keys
# ? s d) and a screenshot of 120x40 against tests/data/top-120x40.txt (XPUPERF_UPDATE_GOLDEN=1
# rewrites it); the too-small-terminal error; TERM=dumb.
# Usage: top_tmux_test.sh PATH_TO_XPUPERF [FAKE_LIBNVIDIA_ML SCENARIO]
set -euo pipefail
xpuperf=${1:?usage: top_tmux_test.sh XPUPERF [FAKE_NVML SCENARIO]}
fake_nvml=${2:-}
scenario=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
command -v tmux >/dev/null || { echo "SKIP: tmux not installed"; exit 77; }
session="xpuperf-top-test-$$"
socket="xpuperf-test-$$"
out=$(mktemp -d)
cleanup() { tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$out"; }
trap cleanup EXIT
# A session that lives for the whole test: killing a test's session must not stop the server while
# the next one starts ("server exited unexpectedly").
tmux -L "$socket" new-session -d -s keep "sleep 600"

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

# The fake GPUs at three sizes: each shows the title with its keys and the GPUs' blocks; the larger
# ones the process header of a GPU and what holds its clocks down, in words.
if [ -n "$fake_nvml" ]; then
  gpu_env="env TERM=xterm-256color LANG=C.UTF-8 XPUPERF_NVML_LIBRARY=$fake_nvml XPUPERF_FAKE_NVML_SCENARIO=$scenario"
  for size in 80x24 120x40 200x60; do
    tmux -L "$socket" new-session -d -s "$session" -x "${size%x*}" -y "${size#*x}" \
      "$gpu_env $xpuperf top --backend nvidia --rate 0.3; sleep 30"
    wait_for 10 screen_has "nvidia1" || { echo "FAIL: $size: no GPU block"; tmux -L "$socket" capture-pane -p -t "$session"; exit 1; }
    screen_has "? help  q quit" || { echo "FAIL: $size: no keys in the title"; exit 1; }
    screen_has "DEV MEMORY" || { echo "FAIL: $size: no header over a GPU's processes"; exit 1; }
    screen_has "Tensor" || { echo "FAIL: $size: the tensor meter is not labelled Tensor"; exit 1; }
    if [ "$size" != 80x24 ]; then
      screen_has "Held by: power cap, thermal (SW)" || { echo "FAIL: $size: no throttle reasons"; tmux -L "$socket" capture-pane -p -t "$session"; exit 1; }
      screen_has "350.1 W / 500.0 W" || { echo "FAIL: $size: no power limit"; exit 1; }
    fi
    if [ "$size" = 120x40 ]; then
      sleep 1  # a few refreshes: the screenshot's values are the fake's, whatever the history length
      tmux -L "$socket" capture-pane -p -t "$session" |
        sed -e '1s/[0-9][0-9]:[0-9][0-9]:[0-9][0-9]/HH:MM:SS/' -e "s/ $(hostname) / HOST /" \
            -e 's/[▁▂▃▄▅▆▇█]//g' -e 's/ *$//' |
        sed -n '1,/^ *PID  *CPU  *MEMORY/p' > "$out/top-120x40.txt"
      golden=$here/data/top-120x40.txt
      if [ "${XPUPERF_UPDATE_GOLDEN:-}" = 1 ]; then cp "$out/top-120x40.txt" "$golden"; fi
      diff -u "$golden" "$out/top-120x40.txt" || { echo "FAIL: the 120x40 screen differs from $golden"; exit 1; }
      # Keys: ? shows the help, any key closes it; s sorts by memory; d shows one device.
      tmux -L "$socket" send-keys -t "$session" '?'
      wait_for 5 screen_has "xpuperf top: keys" || { echo "FAIL: ? shows no help"; exit 1; }
      tmux -L "$socket" send-keys -t "$session" x
      wait_for 5 screen_has "nvidia1" || { echo "FAIL: the help did not close"; exit 1; }
      tmux -L "$socket" send-keys -t "$session" s
      wait_for 5 screen_has "sort memory" || { echo "FAIL: s did not sort by memory"; exit 1; }
      tmux -L "$socket" send-keys -t "$session" d
      wait_for 5 screen_has "device nvidia0" || { echo "FAIL: d did not pick a device"; exit 1; }
      wait_for 5 bash -c "! tmux -L $socket capture-pane -p -t $session | grep -q '^nvidia1'" ||
        { echo "FAIL: d still shows the other device"; exit 1; }
    fi
    tmux -L "$socket" kill-session -t "$session"
  done
fi

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
