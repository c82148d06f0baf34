"""Compares xpuperf's libtpu runtime .proto files with the descriptors inside Google's tpu-info.

Usage: compare_protos.py OUR_DESCRIPTOR_SET
  OUR_DESCRIPTOR_SET is `protoc --include_imports --descriptor_set_out` of backends/tpu/proto.

Every package, service, method (request, response, streaming), message (nested ones included),
field (name, number, type, message/enum type, label, oneof, proto3 `optional`, deprecated) and
enum (value names and numbers) is compared both ways; any difference is printed and the exit
status is 1. A self-check first alters a copy of our descriptors in ways a misread fact sheet
would (a field number, a type, a missing field, an enum value) and requires each to be caught,
so the comparison itself cannot silently pass.
"""

import copy
import sys

from google.protobuf import descriptor_pb2

from tpu_info.proto import tpu_metric_service_pb2
from tpu_info.proto import tpu_telemetry_pb2

PACKAGES = ("tpu.monitoring.runtime", "tpu_telemetry")


def vendor_files():
  """tpu-info's FileDescriptorProtos, keyed by package."""
  out = {}
  for module in (tpu_metric_service_pb2, tpu_telemetry_pb2):
    proto = descriptor_pb2.FileDescriptorProto()
    module.DESCRIPTOR.CopyToProto(proto)
    out[proto.package] = proto
  return out


def our_files(path):
  with open(path, "rb") as f:
    descriptor_set = descriptor_pb2.FileDescriptorSet.FromString(f.read())
  return {f.package: f for f in descriptor_set.file if f.package in PACKAGES}


def field_summary(message, field):
  oneof = ""
  if field.HasField("oneof_index") and not field.proto3_optional:
    oneof = message.oneof_decl[field.oneof_index].name
  return {
      "number": field.number,
      "type": descriptor_pb2.FieldDescriptorProto.Type.Name(field.type),
      "type_name": field.type_name,
      "label": descriptor_pb2.FieldDescriptorProto.Label.Name(field.label),
      "oneof": oneof,
      "proto3_optional": field.proto3_optional,
      "deprecated": field.options.deprecated,
  }


def compare_enum(where, ours, theirs, problems):
  ours_values = {v.name: v.number for v in ours.value}
  theirs_values = {v.name: v.number for v in theirs.value}
  for name in sorted(set(ours_values) | set(theirs_values)):
    a, b = ours_values.get(name), theirs_values.get(name)
    if a != b:
      problems.append(f"enum {where}: value {name} is {a} here, {b} in tpu-info")


def compare_enums(where, ours, theirs, problems):
  ours_enums = {e.name: e for e in ours}
  theirs_enums = {e.name: e for e in theirs}
  for name in sorted(set(ours_enums) | set(theirs_enums)):
    if name not in ours_enums:
      problems.append(f"enum {where}{name}: in tpu-info, missing here")
    elif name not in theirs_enums:
      problems.append(f"enum {where}{name}: here, not in tpu-info")
    else:
      compare_enum(where + name, ours_enums[name], theirs_enums[name], problems)


def compare_messages(where, ours, theirs, problems):
  ours_msgs = {m.name: m for m in ours}
  theirs_msgs = {m.name: m for m in theirs}
  for name in sorted(set(ours_msgs) | set(theirs_msgs)):
    full = where + name
    if name not in ours_msgs:
      problems.append(f"message {full}: in tpu-info, missing here")
      continue
    if name not in theirs_msgs:
      problems.append(f"message {full}: here, not in tpu-info")
      continue
    a, b = ours_msgs[name], theirs_msgs[name]
    if a.options.map_entry != b.options.map_entry:
      problems.append(f"message {full}: map entry {a.options.map_entry} here, "
                      f"{b.options.map_entry} in tpu-info")
    a_fields = {f.name: field_summary(a, f) for f in a.field}
    b_fields = {f.name: field_summary(b, f) for f in b.field}
    for field in sorted(set(a_fields) | set(b_fields)):
      if field not in a_fields:
        problems.append(f"field {full}.{field}: in tpu-info {b_fields[field]}, missing here")
      elif field not in b_fields:
        problems.append(f"field {full}.{field}: here {a_fields[field]}, not in tpu-info")
      else:
        for key, value in a_fields[field].items():
          if value != b_fields[field][key]:
            problems.append(f"field {full}.{field}: {key} is {value!r} here, "
                            f"{b_fields[field][key]!r} in tpu-info")
    compare_messages(full + ".", a.nested_type, b.nested_type, problems)
    compare_enums(full + ".", a.enum_type, b.enum_type, problems)


def compare_services(ours, theirs, problems):
  ours_services = {s.name: s for s in ours.service}
  theirs_services = {s.name: s for s in theirs.service}
  for name in sorted(set(ours_services) | set(theirs_services)):
    if name not in ours_services or name not in theirs_services:
      side = "here only" if name in ours_services else "in tpu-info only"
      problems.append(f"service {ours.package}.{name}: {side}")
      continue
    a = {m.name: m for m in ours_services[name].method}
    b = {m.name: m for m in theirs_services[name].method}
    for method in sorted(set(a) | set(b)):
      if method not in a or method not in b:
        side = "here only" if method in a else "in tpu-info only"
        problems.append(f"rpc {name}.{method}: {side}")
        continue
      for key in ("input_type", "output_type", "client_streaming", "server_streaming"):
        if getattr(a[method], key) != getattr(b[method], key):
          problems.append(f"rpc {name}.{method}: {key} is {getattr(a[method], key)!r} here, "
                          f"{getattr(b[method], key)!r} in tpu-info")


def compare(ours, theirs):
  problems = []
  for package in PACKAGES:
    if package not in ours:
      problems.append(f"package {package}: in tpu-info, missing here")
      continue
    if package not in theirs:
      problems.append(f"package {package}: here, not in tpu-info")
      continue
    a, b = ours[package], theirs[package]
    if a.syntax != b.syntax:
      problems.append(f"package {package}: syntax {a.syntax} here, {b.syntax} in tpu-info")
    compare_services(a, b, problems)
    compare_messages(package + ".", a.message_type, b.message_type, problems)
    compare_enums(package + ".", a.enum_type, b.enum_type, problems)
  return problems


def find_message(files, package, name):
  for message in files[package].message_type:
    if message.name == name:
      return message
  raise KeyError(name)


def self_check(ours, theirs):
  """Each alteration of our descriptors must be reported; returns the ones that were not."""

  def renumber(files):
    find_message(files, "tpu.monitoring.runtime", "Distribution").field[0].number += 10

  def retype(files):
    field = find_message(files, "tpu.monitoring.runtime", "Counter").field[1]
    field.type = descriptor_pb2.FieldDescriptorProto.TYPE_INT64

  def drop_field(files):
    del find_message(files, "tpu.monitoring.runtime", "MetricRequest").field[-1]

  def enum_value(files):
    files["tpu_telemetry"].enum_type[0].value[-1].number += 1

  missed = []
  for alteration in (renumber, retype, drop_field, enum_value):
    altered = copy.deepcopy(ours)
    alteration(altered)
    if not compare(altered, theirs):
      missed.append(alteration.__name__)
  return missed


def main():
  if len(sys.argv) != 2:
    print("usage: compare_protos.py OUR_DESCRIPTOR_SET", file=sys.stderr)
    return 2
  ours = our_files(sys.argv[1])
  theirs = vendor_files()
  missed = self_check(ours, theirs)
  if missed:
    print(f"self-check: the comparison missed {', '.join(missed)}", file=sys.stderr)
    return 1
  problems = compare(ours, theirs)
  for problem in problems:
    print(problem)
  if problems:
    print(f"{len(problems)} difference(s) between backends/tpu/proto and tpu-info's descriptors")
    return 1
  messages = sum(len(f.message_type) for f in ours.values())
  print(f"backends/tpu/proto matches tpu-info's descriptors ({messages} top-level messages, "
        "services, fields and enums compared)")
  return 0


if __name__ == "__main__":
  sys.exit(main())
