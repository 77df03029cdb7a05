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
#   CXX               compiler (default: c++)
set -eu
out=${1:?usage: build-standalone.sh OUTDIR}
src=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$src/.." && pwd)
cxx=${CXX:-c++}
inc="-I$src/include -I$src/common -I${VKP2P_VK_INCLUDE:?} -I${VKP2P_SPV_DIR:?}"
flags="-std=c++20 -O2 -g -Wall -Wextra -Werror"
vk=${VKP2P_LIBVULKAN:--lvulkan}
mkdir -p "$out"

$cxx $flags $inc -fPIC -shared -fvisibility=hidden \
	"$src"/src/layer.cpp "$src"/src/chain.cpp "$src"/src/exporter.cpp \
	"$src"/src/nic_memory.cpp "$src"/src/topology.cpp \
	-o "$out/libVkLayer_onenode_vkp2p.so"
sed "s|@LIBRARY_PATH@|$out/libVkLayer_onenode_vkp2p.so|" \
	"$src/VkLayer_onenode_vkp2p.json.in" >"$out/VkLayer_onenode_vkp2p.json"
$cxx $flags $inc "$src/bench/vkp2p-bench.cpp" -o "$out/vkp2p-bench" $vk
$cxx $flags $inc "$repo/examples/vk-nic-ingest/vk-nic-ingest.cpp" -o "$out/vk-nic-ingest" $vk
echo "built into $out"
