"""A fake of Google's libtpu package for xpuperf's tests: only its monitoring SDK (libtpu.sdk).

It serves the values of the scenario file named by $XPUPERF_FAKE_LIBTPU (JSON, see README.md), so
that xpuperf's SDK reader and Google's tpu-info can be given the same values and compared.
"""

import json
import os
import signal
import time

__version__ = "0.0.0+xpuperf.fake"


def scenario():
  path = os.environ.get("XPUPERF_FAKE_LIBTPU", "")
  if not path:
    return {"metrics": {}}
  with open(path, encoding="utf-8") as f:
    return json.load(f)


_import = scenario().get("import", "ok")
if _import == "crash":
  os.kill(os.getpid(), signal.SIGSEGV)
elif _import == "error":
  raise ImportError("libtpu.so: cannot open shared object file (fake)")
elif _import == "hang":
  time.sleep(3600)
