#!/usr/bin/env bash
# The shipped Kubernetes manifests build with kustomize (kubectl's): the base DaemonSet keeps the
# host's PID namespace and the service account token out, and the process-pods overlay adds them
# with serve's kubelet options and the nodes/proxy role. Skipped (77) without kubectl.
# Usage: kustomize_test.sh SOURCE_DIR
set -euo pipefail
source_dir=$1
command -v kubectl >/dev/null || { echo "skipped: kubectl not installed"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
base=$(kubectl kustomize "$source_dir/deploy/kubernetes") || fail "the base does not build"
overlay=$(kubectl kustomize "$source_dir/deploy/kubernetes-process-pods") ||
  fail "the process-pods overlay does not build"
exporter() {  # the xpuperf-exporter DaemonSet of a rendered manifest, as JSON
  /usr/bin/python3 -c 'import json, sys, yaml
for d in yaml.safe_load_all(sys.stdin):
    if d and d["kind"] == "DaemonSet" and d["metadata"]["name"] == "xpuperf-exporter":
        print(json.dumps(d["spec"]["template"]["spec"]))'
}
check() {  # JSON EXPRESSION: the expression over spec `s` is true
  /usr/bin/python3 -c 'import json, sys
s = json.loads(sys.argv[1]); c = s["containers"][0]
sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}
b=$(printf '%s\n' "$base" | exporter)
o=$(printf '%s\n' "$overlay" | exporter)
check "$b" 'not s["hostPID"] and not s["automountServiceAccountToken"]' ||
  fail "the base DaemonSet asks for the host's pids or a token"
check "$o" 's["hostPID"] and s["automountServiceAccountToken"] and s["serviceAccountName"] == "xpuperf-exporter"' ||
  fail "the overlay lacks hostPID, the token or the service account"
check "$o" '"--kubelet-pods-url=https://$(HOST_IP):10250/pods" in c["args"] and any(e["name"] == "HOST_IP" for e in c["env"])' ||
  fail "the overlay lacks the kubelet URL or HOST_IP"
printf '%s\n' "$overlay" | grep -q "nodes/proxy" || fail "the overlay lacks the nodes/proxy role"
echo "ok: base and process-pods overlay build; the overlay adds hostPID, the token and the kubelet options"
