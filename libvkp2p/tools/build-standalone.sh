#!/bin/sh
# Builds the layer, vkp2p-bench and vk-nic-ingest with a plain C++20
# compiler, without meson or glslc: for machines that have neither the
# Debian 13 tree nor its packages (the H100 lent through the device tool).
#
# usage: build-standalone.sh OUTDIR
#   VKP2P_VK_INCLUDE  directory with vulkan/ (and vk_video/) headers
#   VKP2P_SPV_DIR     directory with checksum.spv.inc and read_bandwidth.spv.inc
#                     (glslc -mfmt=num output, as meson generates them)
#   VKP2P_LIBVULKAN   the Vulkan loader to link (default: -lvulkan)
#   VKP2P_DRM_INCLUDE directory with xf86drm.h and libdrm/ (default: /usr/include)
#   VKP2P_LIBDRM      libdrm to link (default: -ldrm)
#   CXX, CC           compilers (default: c++, cc)
# The layer links libonenode (lib/, compiled here) and libdrm: the render-node
# exporter allocates and reports through them.
set -eu
out=${1:?usage: build-standalone.sh OUTDIR}
src=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$src/.." && pwd)
cxx=${CXX:-c++}
cc=${CC:-cc}
drm_inc=${VKP2P_DRM_INCLUDE:-/usr/include}
onenode_inc="-I$repo/lib -I$repo/uapi -I$repo/uapi/drm -I$drm_inc -I$drm_inc/libdrm"
inc="-I$src/include -I$src/common -I${VKP2P_VK_INCLUDE:?} -I${VKP2P_SPV_DIR:?} $onenode_inc"
flags="-std=c++20 -O2 -g -Wall -Wextra -Werror"
vk=${VKP2P_LIBVULKAN:--lvulkan}
drm=${VKP2P_LIBDRM:--ldrm}
mkdir -p "$out"

for f in onenode onenode_compute onenode_names onenode_queue; do
	$cc -std=gnu11 -O2 -g -Wall -Wextra -Werror -fPIC -fvisibility=hidden $onenode_inc \
		-c "$repo/lib/$f.c" -o "$out/$f.o"
done
$cxx $flags $inc -fPIC -shared -fvisibility=hidden \
	"$src"/src/layer.cpp "$src"/src/chain.cpp "$src"/src/exporter.cpp \
	"$src"/src/nic_memory.cpp "$src"/src/topology.cpp \
	"$out"/onenode.o "$out"/onenode_compute.o "$out"/onenode_names.o "$out"/onenode_queue.o \
	$drm -o "$out/libVkLayer_onenode_vkp2p.so"
sed "s|@LIBRARY_PATH@|$out/libVkLayer_onenode_vkp2p.so|" \
	"$src/VkLayer_onenode_vkp2p.json.in" >"$out/VkLayer_onenode_vkp2p.json"
$cxx $flags $inc "$src/bench/vkp2p-bench.cpp" -o "$out/vkp2p-bench" $vk
$cxx $flags $inc "$repo/examples/vk-nic-ingest/vk-nic-ingest.cpp" -o "$out/vk-nic-ingest" $vk
echo "built into $out"
