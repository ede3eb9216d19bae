#!/usr/bin/env python3
"""Convert PyTorch Flight Recorder dump files (pickles) to JSON.

Not part of the package; used by tools/capture/gpu_capture.sh.
Usage: fr_to_json.py DUMP [DUMP ...]   -> writes DUMP.json beside each file.
Loads with pickle.load and writes json.dumps(obj, indent=1, default=str).
"""
import json
import pickle
import sys


def main() -> int:
    rc = 0
    for path in sys.argv[1:]:
        try:
            with open(path, "rb") as f:
                obj = pickle.load(f)
            with open(path + ".json", "w") as f:
                f.write(json.dumps(obj, indent=1, default=str))
                f.write("\n")
            keys = list(obj.keys()) if isinstance(obj, dict) else type(obj).__name__
            print(f"{path}: converted, top-level keys: {keys}")
        except Exception as e:  # keep going; report
            print(f"{path}: conversion failed: {type(e).__name__}: {e}")
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
