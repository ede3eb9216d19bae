#!/usr/bin/env python3
"""Hold a loopback TCP port in a given state, for the CPU fixture captures.

Not part of the package; used by tools/capture/cpu_capture.sh. Loopback only.
Usage: port_holder.py MODE PORT SECONDS
  listen      bind 0.0.0.0:PORT and listen, never accept (port in use)
  fullbacklog bind 127.0.0.1:PORT, listen(0), fill the accept queue with our
              own connections and never accept: the kernel then drops further
              SYNs, so a new client's connect() hangs until it times out (the
              loopback stand-in for a master address that drops packets)
Prints "ready" once the state is set up, then sleeps SECONDS and exits.
"""
import socket
import sys
import time


def main() -> int:
    mode, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    keep = []
    if mode == "listen":
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("0.0.0.0", port))
        s.listen(16)
        keep.append(s)
    elif mode == "fullbacklog":
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", port))
        s.listen(0)
        keep.append(s)
        for _ in range(4):
            c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            c.setblocking(False)
            c.connect_ex(("127.0.0.1", port))
            keep.append(c)
            time.sleep(0.2)
    else:
        print(f"unknown mode {mode}", file=sys.stderr)
        return 2
    print(f"port_holder: {mode} on port {port} ready", flush=True)
    time.sleep(secs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
