#!/bin/sh
# Unpacks PyTorch's native_functions.yaml and derivatives.yaml of the Debian python3-torch
# packages sources.yaml pins (pytorch-native-functions-2.6 / -2.14), from Debian's archive
# (nothing else is fetched; the packages' sha256 is checked). The 1.13.1 copy comes with
# this machine's python3-torch (tools/install-deps --test).
#   tools/table/fetch_debian_torch.sh [DIR]      (default /work/.mirror/debian-torch)
set -eu
dir=${1:-/work/.mirror/debian-torch}
mkdir -p "$dir"
cd "$dir"
fetch() { # version, pool file, sha256
  [ -f "$2" ] || curl -sSf -o "$2.part" "http://deb.debian.org/debian/pool/main/p/pytorch/$2" && \
    { [ -f "$2" ] || mv "$2.part" "$2"; }
  echo "$3  $2" | sha256sum -c --quiet
  mkdir -p "$1"
  dpkg-deb --fsys-tarfile "$2" | tar -x -C "$1" --wildcards '*torchgen/packaged/*'
}
fetch 2.6.0 python3-torch_2.6.0+dfsg-7_amd64.deb \
  8f0e1272b923adcd0e98bbbc287e73b1826894ccebe52c5fb9f96cd94e89ff4a
fetch 2.14.1 python3-torch_2.14.1+dfsg-1_amd64.deb \
  20b8f0e4e8ada1579110681c9bf3bc18ea9550bf849b328f2c0b2d3da73eb132
echo "fetch_debian_torch: unpacked into $dir"
