#!/usr/bin/env bash
# Make sure an OpenCL CPU device (Debian's pocl) is there; install it when we can.
# Without root, say exactly what to run and go on: OpenCL tests then skip with a reason.
if [ -e /etc/OpenCL/vendors/pocl.icd ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's pocl-opencl-icd (OpenCL on the CPU)"
  if apt-get install -y -q pocl-opencl-icd >/dev/null 2>&1 ||
     (apt-get update -q >/dev/null && apt-get install -y -q pocl-opencl-icd >/dev/null); then
    exit 0
  fi
fi
echo "WARNING: no OpenCL CPU device. Run:  sudo apt-get install pocl-opencl-icd" >&2
echo "         (the pocl wheel fails on these CPUs; tests that need OpenCL will skip)" >&2
exit 0
