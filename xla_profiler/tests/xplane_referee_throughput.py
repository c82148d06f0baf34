"""Side by side on one .xplane.pb, in one run: xpuperf's reader (tools/xplane_read_only: decode
into the trace model) and xprof's (XLA's own tools; ProfileData.from_serialized_xspace: libprotobuf
parse of the XSpace in C++, and the same plus a walk over every event's name, start and duration
from Python). Prints the median of RUNS runs of each, MB/s = file bytes / 1e6 / seconds (wall).
  xplane_referee_throughput.py XPLANE_READ_ONLY FILE [RUNS]"""
import statistics
import subprocess
import sys
import time

from xprof import profile_data


def main():
    tool, path = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    data = open(path, "rb").read()
    size = len(data)
    ours = subprocess.run([tool, path, str(runs)], capture_output=True, text=True, check=True)
    median_line = ours.stdout.strip().splitlines()[-1]
    fields = dict(item.split("=") for item in median_line.split()[1:])
    parse, walk = [], []
    events = 0
    for _ in range(runs):
        start = time.perf_counter()
        with profile_data.ProfileData.from_serialized_xspace(data) as profile:
            parsed = time.perf_counter()
            events = 0
            for plane in profile.planes:
                for line in plane.lines:
                    for event in line.events:
                        _ = (event.name, event.start_ns, event.duration_ns)
                        events += 1
        done = time.perf_counter()
        parse.append(parsed - start)
        walk.append(done - start)
    print(f"file: {path}, {size} bytes")
    print("| reader | median s | MB/s | events |")
    print("| --- | --- | --- | --- |")
    print(f"| xpuperf ParseXSpace (trace model) | {float(fields['seconds']):.4f} | "
          f"{float(fields['mb_per_s']):.1f} | {fields['events']} (host/device planes) |")
    p, w = statistics.median(parse), statistics.median(walk)
    print(f"| xprof ProfileData.from_serialized_xspace (parse) | {p:.4f} | {size / 1e6 / p:.1f} | - |")
    print(f"| xprof parse + Python walk of every event | {w:.4f} | {size / 1e6 / w:.1f} | "
          f"{events} (all planes) |")


if __name__ == "__main__":
    main()
