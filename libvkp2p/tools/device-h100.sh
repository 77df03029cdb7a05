#!/bin/bash
# One H100 session for libvkp2p (device tool: run with carry [".gl",
# ".device-carry/vkp2p"], after tools/prepare-device-carry.sh): build from the carried tree, run the
# example and the benchmark on the NVIDIA driver. Output under $OUT.
set -u
exec > >(tee "$OUT/h100.log") 2>&1
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv
uname -r; ldd --version | head -1; (g++ --version || c++ --version) | head -1
ldconfig -p | grep libvulkan
ls /dev/dri /dev/udmabuf 2>&1 | head -3
C=$PWD/.device-carry/vkp2p
VKP2P_VK_INCLUDE=$C/include VKP2P_SPV_DIR=$C/spv VKP2P_LIBVULKAN=/usr/lib/x86_64-linux-gnu/libvulkan.so.1 \
	libvkp2p/tools/build-standalone.sh /tmp/vkp2p || exit 1
export VK_LAYER_PATH=/tmp/vkp2p
for p in require-p2p prefer-p2p host; do
	echo "== vk-nic-ingest --policy $p --local-producer"
	/tmp/vkp2p/vk-nic-ingest --policy $p --local-producer --packets 65536; echo "rc=$?"
done
echo "== vk-nic-ingest --rdma mlx5_0"
/tmp/vkp2p/vk-nic-ingest --rdma mlx5_0 --local-producer; echo "rc=$?"
echo "== vk-nic-ingest --netdev lo"; /tmp/vkp2p/vk-nic-ingest --netdev lo --local-producer --packets 1024; echo "rc=$?"
echo "== NICs: $(ls /sys/class/net 2>/dev/null) / $(ls /sys/class/infiniband 2>/dev/null)"
for n in /sys/class/net/*; do /tmp/vkp2p/vk-nic-ingest --netdev "${n##*/}" --local-producer --packets 64 | grep -A1 '^support'; done
echo "== vkp2p-bench"
/tmp/vkp2p/vkp2p-bench --size 1024 --passes 20 --calls 1000; echo "rc=$?"
echo "== vkp2p-bench (second run, same settings)"
/tmp/vkp2p/vkp2p-bench --size 1024 --passes 20 --calls 1000; echo "rc=$?"
