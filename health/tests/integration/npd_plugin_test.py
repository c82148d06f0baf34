"""The shipped node-problem-detector monitor (deploy/kubernetes/node-problem-detector/
xpuperf-health-monitor.json) run the way NPD's custom-plugin monitor runs it: each rule's path and
args, killed at the rule's timeout, stdout trimmed and cut at max_output_length, the exit status
mapped 0 → OK, 1 → NonOK, anything else → Unknown, and a permanent rule's NonOK setting its node
condition (written from node-problem-detector's pkg/custompluginmonitor/plugin/plugin.go and
custom_plugin_monitor.go). The rule's /usr/bin/xpuperf is the built binary; the GPUs are the fake
NVML's.

  npd_plugin_test.py --xpuperf XPUPERF --fake-nvml LIBNVIDIA_ML --config MONITOR_JSON --data DIR

Cases: a sick GPU (a failed row remap) sets XpuperfDeviceUnhealthy with xpuperf's one line; a
GPU with only warnings leaves it False; a GPU whose NVML call hangs is answered by xpuperf's own
deadline, inside NPD's timeout, as Unknown with the reason (never NPD's "Timeout when running
plugin").
"""
import argparse
import json
import os
import re
import subprocess
import sys


def seconds(duration):
    """NPD's Go durations as the monitor writes them ("30s", "1m", "500ms")."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(ms|s|m)", duration)
    if not match:
        raise AssertionError(f"not a duration NPD reads: {duration!r}")
    value, unit = float(match.group(1)), match.group(2)
    return value / 1000 if unit == "ms" else value * 60 if unit == "m" else value


def run_rule(rule, config, binary, env):
    """One invocation as NPD's plugin.run does it: (status, message)."""
    timeout = seconds(rule.get("timeout", config["pluginConfig"]["timeout"]))
    argv = [binary] + rule.get("args", [])
    try:
        done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace").strip()
        return "Unknown", f"Timeout when running plugin {rule['path']!r}: output - {out!r}"
    output = done.stdout.decode(errors="replace").strip()
    output = output[: config["pluginConfig"]["max_output_length"]]
    status = {0: "OK", 1: "NonOK"}.get(done.returncode, "Unknown")
    return status, output


def condition_after(config, results):
    """The permanent rules' condition as NPD sets it from one round of results."""
    conditions = {c["type"]: {"status": "False", "reason": c["reason"], "message": c["message"]}
                  for c in config["conditions"]}
    for rule, (status, message) in results:
        if rule["type"] != "permanent":
            continue
        if status == "NonOK":
            conditions[rule["condition"]] = {"status": "True", "reason": rule["reason"],
                                             "message": message}
        elif status == "Unknown":
            conditions[rule["condition"]]["status"] = "Unknown"
            conditions[rule["condition"]]["message"] = message
    return conditions


def check_config(config):
    assert config["plugin"] == "custom", config["plugin"]
    plugin = config["pluginConfig"]
    assert plugin["max_output_length"] <= 80, plugin
    types = {c["type"] for c in config["conditions"]}
    for rule in config["rules"]:
        assert rule["path"] == "/usr/bin/xpuperf", rule
        assert rule["type"] in ("temporary", "permanent"), rule
        if rule["type"] == "permanent":
            assert rule["condition"] in types, f"{rule['condition']} is not a declared condition"
        seconds(rule.get("timeout", plugin["timeout"]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--xpuperf", required=True)
    parser.add_argument("--fake-nvml", required=True)
    parser.add_argument("--config", required=True)
    parser.add_argument("--data", required=True, help="health/tests/data")
    args = parser.parse_args()
    with open(args.config) as f:
        config = json.load(f)
    check_config(config)
    condition = config["conditions"][0]["type"]
    failures = []

    def round_with(scenario, rule_types=("temporary", "permanent")):
        env = dict(os.environ, XPUPERF_NVML_LIBRARY=args.fake_nvml,
                   XPUPERF_FAKE_NVML_SCENARIO=os.path.join(args.data, scenario))
        results = [(rule, run_rule(rule, config, args.xpuperf, env)) for rule in config["rules"]
                   if rule["type"] in rule_types]
        return results, condition_after(config, results)

    results, conditions = round_with("remap-failure.conf")
    got = conditions[condition]
    print(f"sick GPU: {got}")
    if got["status"] != "True" or not got["message"].startswith("xpuperf health: nvidia0 "):
        failures.append(f"a failed row remap should set {condition}: {got}")
    if any(status != "NonOK" for _, (status, _) in results):
        failures.append(f"every rule should say NonOK: {results}")

    results, conditions = round_with("stuck-clocks.conf")
    got = conditions[condition]
    print(f"warnings only: {got}")
    if got["status"] != "False":
        failures.append(f"warnings alone should leave {condition} False: {got}")

    # The permanent rule only: each rule waits out xpuperf's deadline (20 s) here.
    results, conditions = round_with("hung-gpu.conf", rule_types=("permanent",))
    got = conditions[condition]
    print(f"hung NVML call: {got}")
    if got["status"] != "Unknown" or not got["message"].startswith(
            "xpuperf health: unknown: no answer from the backends within"):
        failures.append(f"a hung call should be xpuperf's own Unknown, before NPD's timeout: {got}")

    for failure in failures:
        print("FAIL: " + failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
