#!/bin/sh
# Fills .device-carry/vkp2p (ignored by git) with what the NVIDIA machine
# (H100, H200) lacks:
# Vulkan C headers and the kernel's udmabuf/dma-buf uapi headers from the
# Debian 13 tree, and the SPIR-V a meson build generated. The loaders go to
# .gl as the device README describes (Debian 12's libvulkan1 and libglvnd).
# usage (host): libvkp2p/tools/prepare-device-carry.sh BUILDDIR_ON_HOST
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: prepare-device-carry.sh BUILDDIR}
tree=${ONENODE_CACHE:-$HOME/.cache/onenode}/trixie
dst=$repo/.device-carry/vkp2p
rm -rf "$dst"
mkdir -p "$dst/include/linux" "$dst/spv"
cp -r "$tree/usr/include/vulkan" "$tree/usr/include/vk_video" "$dst/include/"
find "$dst/include/vulkan" \( -name '*.hpp' -o -name '*.cppm' \) -delete
cp "$tree/usr/include/linux/udmabuf.h" "$tree/usr/include/linux/dma-buf.h" "$dst/include/linux/"
cp "$build"/libvkp2p/shaders/*.spv.inc "$dst/spv/"
cp "$repo/libvkp2p/tools/device-nvidia.sh" "$dst/nvidia.sh"
mkdir -p "$repo/.gl" /tmp/amd64/partial
o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
apt-get $o update >/dev/null
(cd "$repo/.gl" && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 \
	libdrm2 libdrm-common libdrm-dev)
