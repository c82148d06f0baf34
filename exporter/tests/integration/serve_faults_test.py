"""Faults and operations of `xpuperf serve`: a GPU lost mid-run drops only its series; SIGHUP
reloads the web config (basic auth, then TLS; a bad file keeps the running config); only GET/HEAD;
SIGTERM exits cleanly."""
import argparse
import gzip
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import warnings

from serve_harness import Serve, check, common_arguments, parse_exposition, series, wait_until

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import crypt


def lost_gpu(serve):
    http = serve.http()
    wait_until(lambda: series(parse_exposition(http.get("/metrics")[2].decode()),
                              "xpuperf_duty_cycle_ratio", device="nvidia1"), 20, "nvidia1 series")
    before = parse_exposition(http.get("/metrics")[2].decode())
    nvidia1_before = [k for k in before if ("device", "nvidia1") in k[1]]
    check(len(nvidia1_before) > 5, f"nvidia1 should have series before: {nvidia1_before}")
    open(serve.lose_gpu_file, "w").close()  # the fake NVML now answers GPU_IS_LOST for GPU 1

    def gone():
        s = parse_exposition(http.get("/metrics")[2].decode())
        up = series(s, "xpuperf_device_up", device="nvidia1")
        return s if up and list(up.values())[0] == 0 else None
    after = wait_until(gone, 20, "nvidia1 reported down")
    # Its health verdict says why (serve's health series, docs/HEALTH.md): not a stale reading.
    def judged():
        s = parse_exposition(http.get("/metrics")[2].decode())
        lost = series(s, "xpuperf_health", device="nvidia1", code="DRIVER_DEVICE_LOST")
        return s if lost and list(lost.values()) == [3.0] else None
    after = wait_until(judged, 20, "nvidia1's health verdict DRIVER_DEVICE_LOST")
    left = {k[0] for k in after if ("device", "nvidia1") in k[1]}
    check(left == {"xpuperf_device_up", "xpuperf_device_info", "xpuperf_health"},
          f"only device_up/device_info/health may remain for the lost GPU, got {sorted(left)}")
    check(series(after, "xpuperf_duty_cycle_ratio", device="nvidia0"), "nvidia0 must go on")
    check(series(after, "xpuperf_memory_used_bytes", device="tpu0"), "the TPU must go on")
    check(list(series(after, "xpuperf_device_up", device="nvidia0").values()) == [1.0], "nvidia0 up")
    status, _, body = http.get("/health")
    health = json.loads(body)
    check(status == 200, f"collectors are fine, /health stays 200: {status} {health}")
    lost = [d for d in health["devices"] if d["id"] == "nvidia1"][0]
    check(lost["state"] == "down" and "GPU lost" in lost["reason"], f"/health device: {lost}")


def endpoints(serve):
    http = serve.http()
    status, headers, body = http.get("/metrics", {"Accept-Encoding": "gzip"})
    check(status == 200 and headers["Content-Encoding"] == "gzip", f"gzip: {status} {headers}")
    check(b"xpuperf_build_info" in gzip.decompress(body), "gzip body")
    status, headers, body = http.get("/metrics", method="HEAD")
    check(status == 200 and body == b"", f"HEAD: {status} {len(body)}")
    status, headers, _ = http.get("/metrics", method="POST")
    check(status == 405 and headers["Allow"] == "GET, HEAD", f"POST: {status}")
    status, _, _ = http.get("/../../etc/passwd")
    check(status in (400, 404), f"path traversal: {status}")
    status, _, body = http.get("/api/v1/snapshot")
    doc = json.loads(body)
    check(status == 200 and doc["json_schema_version"] >= 1 and doc["readings"], "snapshot")
    status, headers, body = http.get("/")
    check(status == 200 and b"/metrics" in body, "landing page")
    check(headers["X-Content-Type-Options"] == "nosniff", "nosniff header")


def reload_web_config(serve, config_path, tls_dir):
    http = serve.http()
    password = "s3cret-pass"
    hashed = crypt.crypt(password, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024))
    with open(config_path, "w") as f:
        f.write(f"basic_auth_users:\n  prometheus: {hashed}\n")
    serve.signal(signal.SIGHUP)
    wait_until(lambda: http.get("/metrics")[0] == 401, 10, "basic auth after SIGHUP")
    status, headers, _ = http.get("/metrics")
    check(headers["WWW-Authenticate"].startswith("Basic"), "WWW-Authenticate")
    check(serve.http(auth=("prometheus", "wrong")).get("/metrics")[0] == 401, "wrong password")
    check(serve.http(auth=("nobody", password)).get("/metrics")[0] == 401, "unknown user")
    check(serve.http(auth=("prometheus", password)).get("/metrics")[0] == 200, "right password")

    # A broken file: the running config stays.
    with open(config_path, "w") as f:
        f.write("basic_auth_users: [not, a, map]\n")
    serve.signal(signal.SIGHUP)
    wait_until(lambda: "reload failed" in serve.log_text(), 10, "reload failure logged")
    check(serve.http(auth=("prometheus", password)).get("/metrics")[0] == 200, "old config kept")

    # TLS with a self-signed certificate.
    cert, key = os.path.join(tls_dir, "tls.crt"), os.path.join(tls_dir, "tls.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    with open(config_path, "w") as f:
        f.write(f"tls_server_config:\n  cert_file: {cert}\n  key_file: {key}\n"
                f"basic_auth_users:\n  prometheus: {hashed}\n")
    serve.signal(signal.SIGHUP)
    context = ssl.create_default_context(cafile=cert)
    https = serve.http(auth=("prometheus", password), context=context, scheme="https")
    wait_until(lambda: https.get("/metrics")[0] == 200, 10, "HTTPS after SIGHUP")
    check(b"xpuperf_build_info" in https.get("/metrics")[2], "metrics over TLS")


def main():
    parser = argparse.ArgumentParser()
    common_arguments(parser)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="xpuperf-webcfg-")
    config_path = os.path.join(work, "web-config.yml")
    open(config_path, "w").close()  # empty: plain HTTP, no auth
    serve = Serve(args, extra_args=["--web-config", config_path])
    try:
        endpoints(serve)
        lost_gpu(serve)
        reload_web_config(serve, config_path, work)
        serve.signal(signal.SIGTERM)
        started = time.time()
        code = serve.process.wait(10)
        check(code == 0, f"SIGTERM: exit {code}: {serve.log_text()}")
        check(time.time() - started < 5, "SIGTERM: slow exit")
        check("stopped" in serve.log_text(), "clean stop message")
        print("ok")
    finally:
        serve.stop()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
