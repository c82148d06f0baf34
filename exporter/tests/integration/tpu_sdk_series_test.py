"""libtpu's SDK through `xpuperf serve`: with the fake libtpu package (backends/tpu/tests/
fake_libtpu) beside the fake TPU runtime, serve exports tensor-core utilisation, the throttle score,
each ICI link's health and TPU-Z's core states; the per-read states (sequencers, queued programs)
stay out of the exposition; promtool accepts the text; and the shipped rules fire on the link
scored 10 when Debian's promtool evaluates them over what serve exported.
"""
import argparse
import os
import shutil
import subprocess
import tempfile

from serve_harness import SKIP, Serve, check, common_arguments, scrape, series, wait_until


def main():
    parser = argparse.ArgumentParser()
    common_arguments(parser)
    parser.add_argument("--fake-libtpu", required=True)
    parser.add_argument("--rules", required=True)
    args = parser.parse_args()
    env = {"PYTHONPATH": args.fake_libtpu,
           "XPUPERF_FAKE_LIBTPU": os.path.join(args.fake_libtpu, "busy.json"),
           "XPUPERF_TPU_SDK_DEADLINE": "60"}
    serve = Serve(args, env=env)
    try:
        def ready():
            s = scrape(serve)
            return s if series(s, "xpuperf_ici_link_health_score") else None
        s = wait_until(ready, 60, "the SDK's series")
        tensor = series(s, "xpuperf_tensorcore_utilization_ratio", device="tpu1")
        check(list(tensor.values()) == [1.0], f"tpu1's tensor cores at 100 %: {tensor}")
        throttle = series(s, "xpuperf_throttle_score", device="tpu1")
        check(list(throttle.values()) == [3.0], f"tpu1 throttled 30 %: {throttle}")
        down = series(s, "xpuperf_ici_link_health_score", link="tray1.chip1.ici1.int")
        check(list(down.values()) == [10.0], f"the link scored 10: {down}")
        state = series(s, "xpuperf_core_state_info", device="tpu0", program="deadbeef01",
                       xdb_server="true")
        check(list(state.values()) == [1.0], f"tpu0's core runs deadbeef01: {state}")
        latency = series(s, "xpuperf_latency_statistic_seconds", type="collective_e2e",
                         collective="ALL_REDUCE", statistic="p999")
        check(abs(list(latency.values())[0] - 50e-6) < 1e-12, f"ALL_REDUCE p999 50 us: {latency}")
        for name in ("xpuperf_sequencer_state_info", "xpuperf_queued_program_info"):
            check(not series(s, name), f"{name} changes with every read: not exported")

        status, _, body = serve.http().get("/metrics")
        text = body.decode()
        promtool = shutil.which("promtool")
        if promtool is None:
            print("skipped: promtool is not installed (prometheus package)")
            return SKIP
        checked = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True,
                                 text=True)
        check(checked.returncode == 0, f"promtool check metrics: {checked.stdout}{checked.stderr}")

        # The shipped rules over what serve exported: the ICI link of score 10 fires after 1 m.
        links = [line for line in text.splitlines()
                 if line.startswith("xpuperf_ici_link_health_score{")]
        with tempfile.TemporaryDirectory() as work:
            test_file = os.path.join(work, "ici.test.yml")
            with open(test_file, "w") as f:
                f.write(f"rule_files:\n  - {args.rules}\nevaluation_interval: 1m\ntests:\n"
                        "  - interval: 1m\n    input_series:\n")
                for line in links:
                    metric, value = line.rsplit(" ", 1)
                    f.write(f"      - series: '{metric}'\n        values: '{value}x5'\n")
                f.write("    alert_rule_test:\n      - eval_time: 2m\n"
                        "        alertname: XpuperfIciLinkDown\n        exp_alerts:\n"
                        "          - exp_labels:\n")
                labels = dict(pair.split("=", 1) for pair in
                              next(l for l in links if "ici1" in l).split("{", 1)[1]
                              .rsplit("}", 1)[0].replace('"', "").split(","))
                for key, value in {**labels, "severity": "critical"}.items():
                    f.write(f"              {key}: '{value}'\n")
                f.write("            exp_annotations:\n"
                        f"              summary: 'ICI link {labels['link']} on "
                        f"{labels['hostname']} is not usable'\n"
                        "              description: \"libtpu has scored the link 10 of 10 (not "
                        "usable) for 1 minute; the slice's collectives cross it.\"\n")
            result = subprocess.run([promtool, "test", "rules", test_file], capture_output=True,
                                    text=True)
            check(result.returncode == 0,
                  f"the shipped XpuperfIciLinkDown over serve's series: {result.stdout}"
                  f"{result.stderr}")
    finally:
        serve.stop()
    print("serve exports libtpu's SDK metrics and TPU-Z core states; XpuperfIciLinkDown fires")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
