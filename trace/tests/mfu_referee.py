#!/usr/bin/env python3
"""`xpuperf analyze -a mfu` against PyTorch's own FLOP counter (torch.utils.flop_counter).

Real PyTorch CPU training steps, recorded with torch.profiler (record_shapes=True, ProfilerStep#N
steps), of models that use every operator family the MFU analysis counts: convolutions (strided,
padded, dilated, grouped, transposed, 1-D and 2-D, padding="same"), linear layers, batched and
broadcast matrix products, scaled-dot-product attention, in fp32 and bf16, forward and backward.
The same step run under FlopCounterMode gives PyTorch's FLOPs; every profiled step's model FLOPs
must equal them (to 1e-9 relative). A grouped convolution runs forward only: for the gradient of
a grouped convolution's weight PyTorch's counter counts C_in where the work is C_in/groups (its
own approximation), which xpuperf does not copy.

Standard library only here; PyTorch comes from the Python package's test environment
(requirements/python-tests.txt) through scripts/pytorch_env.py. Exit 77 (skip) only when that
environment cannot be created or its torch cannot be imported (the reason is printed)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77

# Runs in the PyTorch environment: records the trace and writes PyTorch's FLOPs per step.
RECORDER = r'''
import json, sys, torch
import torch.nn as nn, torch.nn.functional as F
from torch.profiler import profile, ProfilerActivity, schedule
from torch.utils.flop_counter import FlopCounterMode

torch.manual_seed(0)

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, stride=2, padding=1)
        self.same = nn.Conv2d(8, 8, 3, padding="same", dilation=2)
        self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.conv1d = nn.Conv1d(4, 6, 3, dilation=2)
        self.grouped = nn.Conv2d(8, 8, 3, groups=2)
        self.lin = nn.Linear(8 * 8 * 8, 64)
        self.out = nn.Linear(256, 10)
        self.bf16 = nn.Linear(64, 32).to(torch.bfloat16)

    def forward(self, x):
        y = F.relu(self.conv(x))                      # [4, 8, 8, 8]
        y = y + self.same(y)
        z = self.up(y)                                # [4, 4, 16, 16]
        w = self.conv1d(z.flatten(2)[:, :, :20])      # [4, 6, 16]
        with torch.no_grad():
            g = self.grouped(y)                       # forward only (see the docstring)
            hb = self.bf16(torch.randn(5, 64, dtype=torch.bfloat16))
        h = self.lin(y.flatten(1)).view(-1, 4, 4, 16)  # B=1, H=4, L=4, E=16
        a = F.scaled_dot_product_attention(h, h, h, is_causal=True)
        b = torch.bmm(h.flatten(0, 1), h.flatten(0, 1).transpose(1, 2))  # [4, 4, 4]
        c = torch.matmul(b, h.flatten(0, 1))          # batched [4, 4, 16]
        d = torch.matmul(c.flatten(0, 1), torch.ones(16, 16))  # broadcast to mm
        return (self.out(a.flatten(1)).sum() + w.sum() + d.sum() + g.sum() * 0
                + hb.float().sum() * 0)

model = Model()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(4, 3, 16, 16)

def step():
    opt.zero_grad()
    model(x).backward()
    opt.step()

counter = FlopCounterMode(display=False)
with counter:
    model(x).backward()
expected = counter.get_total_flops()

with profile(activities=[ProfilerActivity.CPU], record_shapes=True,
             schedule=schedule(wait=0, warmup=1, active=3),
             on_trace_ready=lambda p: p.export_chrome_trace(sys.argv[1])) as prof:
    for _ in range(4):
        step()
        prof.step()
json.dump({"flops_per_step": expected,
           "by_op": {str(k): v for k, v in counter.get_flop_counts()["Global"].items()}},
          open(sys.argv[2], "w"))
'''


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--xpuperf", required=True)
    parser.add_argument("--source-dir", required=True)
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(args.source_dir, "scripts"))
    from pytorch_env import torch_python

    python, why_not = torch_python(args.source_dir)
    if python is None:
        print("SKIP:", why_not)
        return SKIP

    work = tempfile.mkdtemp(prefix="xpuperf-mfu-referee-", dir="/tmp")
    try:
        trace = os.path.join(work, "train.pt.trace.json")
        counts = os.path.join(work, "pytorch_flops.json")
        recorder = os.path.join(work, "record.py")
        with open(recorder, "w") as f:
            f.write(RECORDER)
        recorded = subprocess.run([python, recorder, trace, counts], capture_output=True,
                                  text=True, timeout=600)
        if recorded.returncode != 0:
            print("FAIL: recording the PyTorch trace failed:", recorded.stderr[-3000:])
            return 1
        torch_counts = json.load(open(counts))
        expected = torch_counts["flops_per_step"]
        print("PyTorch's counter per step:", expected, torch_counts["by_op"])

        run = subprocess.run([args.xpuperf, "analyze", trace, "-a", "mfu", "--json",
                              "--spec", "none"], capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            print("FAIL: xpuperf analyze exited", run.returncode, run.stderr)
            return 1
        mfu = json.loads(run.stdout)["ranks"][0]["mfu"]
        steps = [s for s in mfu["steps"] if s["step"] != "all steps"]
        failures = []
        precisions = sorted(p["precision"] for p in mfu["precisions"])
        if precisions != ["bf16", "fp32"]:
            failures.append(f"expected bf16 and fp32 FLOPs, got {precisions}")
        if len(steps) != 3:
            failures.append(f"expected 3 profiled steps, got {[s['step'] for s in steps]}")
        for s in steps:
            print(f"{s['step']}: xpuperf {s['flops']:.0f} FLOP")
            if abs(s["flops"] - expected) > 1e-9 * expected:
                failures.append(f"{s['step']}: xpuperf {s['flops']:.0f} != PyTorch {expected}")
        if mfu["ops_without_shapes"] != 0 or mfu["ops_with_unusable_shapes"] != 0:
            failures.append(f"operators not counted: {mfu['notes']}")
        if "mfu" in mfu or "turned off" not in mfu.get("mfu_unavailable", ""):
            failures.append(f"--spec none must turn MFU off: {mfu}")
        # The text view says the same in its summary.
        text = subprocess.run([args.xpuperf, "analyze", trace, "-a", "mfu", "--spec", "none"],
                              capture_output=True, text=True, timeout=300)
        if "model FLOPs" not in text.stdout or "no MFU: turned off" not in text.stdout:
            failures.append("text summary lacks the model FLOPs line:\n" + text.stdout)
        if failures:
            print("FAIL:\n  " + "\n  ".join(failures))
            return 1
        print(f"PASS: {len(steps)} steps, each {expected} FLOP as PyTorch counts them")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
