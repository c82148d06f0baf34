"""Side by side on one .xplane.pb, in one run: xpuperf's reader (trace/tools/xplane_read_only: decode
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
    parse, walk, parse_cpu, walk_cpu = [], [], [], []
    events = 0
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        with profile_data.ProfileData.from_serialized_xspace(data) as profile:
            parsed, parsed_cpu = time.perf_counter(), time.process_time()
            events = 0
            for plane in profile.planes:
                for line in plane.lines:
                    for event in line.events:
                        _ = (event.name, event.start_ns, event.duration_ns)
                        events += 1
        done, done_cpu = time.perf_counter(), time.process_time()
        parse.append(parsed - start)
        parse_cpu.append(parsed_cpu - start_cpu)
        walk.append(done - start)
        walk_cpu.append(done_cpu - start_cpu)
    mb = size / 1e6
    print(f"file: {path}, {size} bytes, {runs} runs each, medians")
    print("| reader | wall s | CPU s | MB/s (wall) | MB/s (CPU) | events |")
    print("| --- | --- | --- | --- | --- | --- |")
    w, c = float(fields["seconds"]), float(fields["cpu_seconds"])
    print(f"| xpuperf ParseXSpace (into the trace model) | {w:.3f} | {c:.3f} | {mb / w:.1f} | "
          f"{mb / c:.1f} | {fields['events']} (host and device planes) |")
    for label, wall, cpu, count in (
            ("xprof ProfileData.from_serialized_xspace (libprotobuf parse)", parse, parse_cpu, "-"),
            ("xprof parse + Python walk of every event", walk, walk_cpu,
             f"{events} (all planes)")):
        w, c = statistics.median(wall), statistics.median(cpu)
        print(f"| {label} | {w:.3f} | {c:.3f} | {mb / w:.1f} | {mb / c:.1f} | {count} |")


if __name__ == "__main__":
    main()
