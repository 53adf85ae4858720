#!/usr/bin/env bash
# Make sure an OpenCL CPU device (Debian's pocl) is there; install it when we can.
if [ -e /etc/OpenCL/vendors/pocl.icd ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "installing Debian's pocl-opencl-icd (OpenCL on the CPU)"
  (apt-get install -y -q pocl-opencl-icd >/dev/null 2>&1 ||
   (apt-get update -q >/dev/null && apt-get install -y -q pocl-opencl-icd >/dev/null)) && exit 0
fi
echo "No OpenCL CPU device. Run:  sudo apt-get install pocl-opencl-icd" >&2
exit 1
